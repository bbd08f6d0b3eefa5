// Package arrival decides when a benchmark's requests are sent.
//
// An open-loop run sends request i at a scheduled offset from the run start,
// whatever the server is doing; a slow server cannot lower the offered load.
// Its schedule is computed up front, as a pure function of the Config and its
// seed, so it can be printed (--dry-run), tested, and split exactly across
// machines. A closed-loop run keeps a fixed number of requests in flight and
// has no precomputed times: each request is scheduled when a slot frees.
//
// Schedules are built in two steps. A Process draws inter-arrival gaps in
// operational time, where the mean gap is one arrival: Constant, Poisson
// (exponential gaps) or Gamma (gaps whose coefficient of variation is
// 1/sqrt(burstiness), as `vllm bench serve` defines burstiness). The rate
// profile (a steady rate, optionally preceded by a linear or exponential
// Ramp) then maps operational time to real time. Separating the two lets any
// process ride any ramp: a ramping Poisson process is the non-homogeneous
// Poisson process of the ramp's rate.
//
// The first request of an open-loop schedule is sent at offset 0; later ones
// follow at the drawn gaps. So n requests at rate r span about (n−1)/r.
package arrival
