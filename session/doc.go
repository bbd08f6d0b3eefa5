// Package session holds the workloads whose requests depend on one
// another: multi-turn sessions and agent tasks.
//
// A session is a conversation. Turn k's prompt is the whole history, the
// earlier user messages and the replies actually received, followed by the
// next user message; it is sent when turn k−1's reply ended plus a think
// time (fixed, drawn from a seeded distribution, or given by the dataset).
// An agent task is a graph of LLM calls: a call waits for the calls it
// depends on, then for the tool time of each (a gap of given length), so a
// step that waits for a tool, a fan-out of parallel sub-calls and their
// join are all one rule. A session is the special case of a chain.
//
// Both come as a Flow of Calls. A Source supplies the flows of a run: a
// synthetic generator (turns per session, per-turn lengths, think time),
// ShareGPT with every turn, the sessions JSON Lines format (ReadSessions)
// and the agent task format (ReadTasks). Flow.Prompt builds each call's
// conversation from the conversations its dependencies ended with, so the
// package stays free of any transport: the load generator sends the
// conversation as chat messages or as text, and the simulator's virtual
// time takes it as token ids.
package session
