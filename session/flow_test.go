package session

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// play runs f's calls in order as a server that answers call j with
// reply(j) would, and returns each call's prompt.
func play(f *Flow, reply func(j int) string) []Conversation {
	done := make([]Conversation, len(f.Calls))
	prompts := make([]Conversation, len(f.Calls))
	for j := range f.Calls {
		prompts[j] = f.Prompt(j, done)
		done[j] = Reply(prompts[j], reply(j))
	}
	return prompts
}

// TestTurnPromptHoldsEveryEarlierTurnExactly: turn k sends the system
// prompt, then every earlier user message and the reply actually received
// to it, in order, then its own message, and nothing else.
func TestTurnPromptHoldsEveryEarlierTurnExactly(t *testing.T) {
	wc := workload.DefaultConfig()
	wc.Random = workload.RandomConfig{InputLen: 20, OutputLen: 8, PrefixLen: 6}
	c := DefaultConfig()
	c.MultiTurn, c.Turns = true, Span{5, 5}
	src, err := New(wc, c)
	if err != nil {
		t.Fatal(err)
	}
	f := src.Flow(3)
	reply := func(j int) string { return fmt.Sprintf("reply to turn %d", j+1) }
	prompts := play(f, reply)
	for k, p := range prompts {
		want := Conversation{{Role: RoleSystem, Content: f.System}}
		for i := range k {
			want = append(want, Message{RoleUser, f.Calls[i].Text}, Message{RoleAssistant, reply(i)})
		}
		want = append(want, Message{RoleUser, f.Calls[k].Text})
		if !reflect.DeepEqual(p, want) {
			t.Errorf("turn %d sends\n %q\nwant\n %q", k+1, p, want)
		}
		if k > 0 {
			// As text, the turn begins with the previous prompt and its
			// reply: what a prefix cache reuses.
			prev := prompts[k-1].Text() + textSep + reply(k-1) + textSep
			if !strings.HasPrefix(p.Text(), prev) || p.Text() != prev+f.Calls[k].Text {
				t.Errorf("turn %d's text does not extend turn %d's exactly", k+1, k)
			}
		}
	}
	if len(f.System) == 0 || tokenizer.Count(f.System) != 6 {
		t.Errorf("system prompt %q, want 6 tokens", f.System)
	}
}

// TestTaskPrompts: a join continues its first dependency's conversation and
// hands the others' replies over in one user message; a fresh call starts
// anew; a root sends the system prompt and its message.
func TestTaskPrompts(t *testing.T) {
	f := &Flow{ID: "t", Kind: KindTask, System: "sys", Calls: []Call{
		{ID: "plan", Text: "plan it", OutputTokens: 1},
		{ID: "a", Text: "do a", OutputTokens: 1, After: []Dep{{Call: 0, Wait: time.Second}}},
		{ID: "b", Text: "do b", OutputTokens: 1, Fresh: true, After: []Dep{{Call: 0}}},
		{ID: "join", Text: "sum up", OutputTokens: 1, After: []Dep{{Call: 1}, {Call: 2}}},
	}}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	prompts := play(f, func(j int) string { return "R" + f.Calls[j].ID })
	want := []Conversation{
		{{RoleSystem, "sys"}, {RoleUser, "plan it"}},
		{{RoleSystem, "sys"}, {RoleUser, "plan it"}, {RoleAssistant, "Rplan"}, {RoleUser, "do a"}},
		{{RoleSystem, "sys"}, {RoleUser, "do b"}},
		{{RoleSystem, "sys"}, {RoleUser, "plan it"}, {RoleAssistant, "Rplan"}, {RoleUser, "do a"}, {RoleAssistant, "Ra"},
			{RoleUser, "[b]\nRb\n\nsum up"}},
	}
	for j := range want {
		if !reflect.DeepEqual(prompts[j], want[j]) {
			t.Errorf("call %s sends %q, want %q", f.Calls[j].ID, prompts[j], want[j])
		}
	}
}

func TestFlowValidate(t *testing.T) {
	ok := func() *Flow {
		return &Flow{ID: "f", Calls: []Call{{OutputTokens: 1}, {OutputTokens: 1, After: []Dep{{Call: 0}}}}}
	}
	tests := []struct {
		name string
		edit func(f *Flow)
		want string // "" when valid
	}{
		// a two-turn chain
		{"chain", func(f *Flow) {}, ""},
		// nothing to send
		{"no calls", func(f *Flow) { f.Calls = nil }, "no calls"},
		// a reply of nothing is never asked for
		{"zero output", func(f *Flow) { f.Calls[1].OutputTokens = 0 }, "output tokens"},
		// waiting for itself, or for a later call, never starts
		{"self", func(f *Flow) { f.Calls[1].After[0].Call = 1 }, "does not come before it"},
		{"negative index", func(f *Flow) { f.Calls[1].After[0].Call = -1 }, "does not come before it"},
		// time does not run backwards
		{"negative wait", func(f *Flow) { f.Calls[1].After[0].Wait = -time.Second }, "negative"},
		{"negative delay", func(f *Flow) { f.Calls[0].Delay = -1 }, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ok()
			tt.edit(f)
			err := f.Validate()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
