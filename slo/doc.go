// Package slo parses and evaluates service-level objectives.
//
// Two kinds of expression exist. A per-request SLO says when one request is
// good; goodput counts the tokens of good requests:
//
//	ttft<=500ms,tpot<=50ms        conditions, ANDed
//	ttft:500 tpot:50 e2el:2000    the same in vllm bench serve's --goodput form (milliseconds)
//	ttfa<=2s,tpot_answer<=50ms    for reasoning models: the first answer token, the answer's pace
//
// A gate is a pass/fail check on a whole run, for CI:
//
//	p99(ttft)<=500ms  mean(tpot)<40ms  max(e2e)<=10s  attainment>=0.9  goodput>=1000
//	p90(ttfa)<=2s     mean(tpot_reasoning)<=20ms
//	session_goodput>=100  session_attainment>=80%  p99(task_completion)<=60s
//
// Errors say where the expression went wrong, by column.
package slo
