package session

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// fileConfig is the workload config of a file dataset read in file order.
func fileConfig(dataset, path string) workload.Config {
	wc := workload.DefaultConfig()
	wc.Dataset, wc.Path, wc.NoShuffle = dataset, path, true
	return wc
}

func waits(f *Flow) [][]Dep {
	out := make([][]Dep, len(f.Calls))
	for j, c := range f.Calls {
		out[j] = c.After
	}
	return out
}

func TestReadSessions(t *testing.T) {
	c := DefaultConfig()
	c.Think = Think{Kind: ThinkFixed, Mean: 700 * time.Millisecond}
	src, err := New(fileConfig(DatasetSessions, "testdata/sessions.jsonl"), c)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 3 || src.MaxCalls() != 3 || src.Kind() != KindSession {
		t.Fatalf("len %d, max calls %d, kind %v; want 3, 3, session", src.Len(), src.MaxCalls(), src.Kind())
	}
	chat := src.Flow(0)
	if chat.ID != "chat-1" || chat.System != "You are terse." || len(chat.Calls) != 3 {
		t.Fatalf("first session %+v", chat)
	}
	// The file's think times are honoured to the nanosecond; the first
	// turn has none.
	want := [][]Dep{nil, {{Call: 0, Wait: 4 * time.Second}}, {{Call: 1, Wait: 1500500 * time.Microsecond}}}
	if got := waits(chat); !reflect.DeepEqual(got, want) {
		t.Errorf("waits %v, want %v", got, want)
	}
	if c := chat.Calls[0]; c.Text != "What is a KV cache?" || c.OutputTokens != 120 || c.InputTokens != tokenizer.Count(c.Text) {
		t.Errorf("turn 1 %+v", c)
	}
	// input_len makes text of exactly that many built-in tokens.
	if c := chat.Calls[2]; tokenizer.Count(c.Text) != 30 || c.InputTokens != 30 {
		t.Errorf("turn 3 has %d tokens of text, want 30", tokenizer.Count(c.Text))
	}
	// A numeric id; a turn without output_len takes --custom-output-len; a
	// turn without think_ms takes --think-time.
	seven := src.Flow(1)
	if seven.ID != "7" || seven.Calls[1].OutputTokens != 256 || seven.Calls[1].After[0].Wait != 700*time.Millisecond {
		t.Errorf("second session %+v", seven)
	}
	// No id: named by its line.
	if id := src.Flow(2).ID; id != "line 4" {
		t.Errorf("third session's id %q, want \"line 4\"", id)
	}
	// Cycling: the repeat has its own id, and the same content.
	again := src.Flow(3)
	if again.ID != "chat-1~1" || again.Calls[2].Text != chat.Calls[2].Text {
		t.Errorf("flow 3 is %q with turn 3 %q; want chat-1~1 repeating chat-1", again.ID, again.Calls[2].Text)
	}
}

func TestReadSessionsDrawsThinkTimesPerFlow(t *testing.T) {
	c := DefaultConfig()
	c.Think = Think{Kind: ThinkExponential, Mean: time.Second}
	wc := fileConfig(DatasetSessions, "testdata/sessions.jsonl")
	src, err := New(wc, c)
	if err != nil {
		t.Fatal(err)
	}
	a, b := src.Flow(1).Calls[1].After[0].Wait, src.Flow(4).Calls[1].After[0].Wait
	if a == b {
		t.Errorf("flows 1 and 4 (the same line) drew the same think time %v", a)
	}
	if again := src.Flow(1).Calls[1].After[0].Wait; again != a {
		t.Errorf("flow 1 drew %v, then %v", a, again)
	}
}

func TestReadSessionsMaxTurns(t *testing.T) {
	c := DefaultConfig()
	c.MaxTurns = 2
	src, err := New(fileConfig(DatasetSessions, "testdata/sessions.jsonl"), c)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(src.Flow(0).Calls); n != 2 || src.MaxCalls() != 2 {
		t.Errorf("%d turns (max %d), want 2", n, src.MaxCalls())
	}
}

func TestReadTasks(t *testing.T) {
	src, err := New(fileConfig(DatasetAgent, "testdata/tasks.jsonl"), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 3 || src.MaxCalls() != 4 || src.Kind() != KindTask {
		t.Fatalf("len %d, max calls %d, kind %v", src.Len(), src.MaxCalls(), src.Kind())
	}
	tests := []struct {
		flow  int
		ids   []string
		waits [][]Dep
		delay []time.Duration
		fresh []bool
	}{
		// fan-out 1.2 s after plan (plan's tool time), join after read-a
		// (no tool) and read-b (300 ms)
		{0, []string{"plan", "read-a", "read-b", "answer"},
			[][]Dep{nil, {{0, 1200 * time.Millisecond}}, {{0, 1200 * time.Millisecond}}, {{1, 0}, {2, 300 * time.Millisecond}}},
			[]time.Duration{0, 0, 0, 0}, []bool{false, true, false, false}},
		// a chain without "after": each call waits for the one before,
		// plus that call's tool time
		{1, []string{"c1", "c2", "c3"},
			[][]Dep{nil, {{0, 500 * time.Millisecond}}, {{1, 250 * time.Millisecond}}},
			[]time.Duration{0, 0, 0}, []bool{false, false, false}},
		// "after": [] is a second root, delay_ms after the task starts
		{2, []string{"a", "b"}, [][]Dep{nil, nil}, []time.Duration{0, 750 * time.Millisecond}, []bool{false, false}},
	}
	for _, tt := range tests {
		f := src.Flow(int64(tt.flow))
		var ids []string
		var delay []time.Duration
		var fresh []bool
		for _, c := range f.Calls {
			ids, delay, fresh = append(ids, c.ID), append(delay, c.Delay), append(fresh, c.Fresh)
		}
		if !reflect.DeepEqual(ids, tt.ids) || !reflect.DeepEqual(waits(f), tt.waits) || !reflect.DeepEqual(delay, tt.delay) || !reflect.DeepEqual(fresh, tt.fresh) {
			t.Errorf("task %s: ids %v waits %v delays %v fresh %v; want %v %v %v %v", f.ID, ids, waits(f), delay, fresh, tt.ids, tt.waits, tt.delay, tt.fresh)
		}
		if err := f.Validate(); err != nil {
			t.Errorf("task %s: %v", f.ID, err)
		}
	}
}

func TestReadFlowFilesRefuseBadLines(t *testing.T) {
	tests := []struct {
		name, dataset, line, want string
	}{
		// sessions
		{"not JSON", DatasetSessions, `{"turns": [`, "sessions.jsonl:2"},
		{"no turns", DatasetSessions, `{"id": "x"}`, `"turns" is missing`},
		{"empty prompt", DatasetSessions, `{"turns": [{"prompt": ""}]}`, `"prompt" is empty`},
		{"no message", DatasetSessions, `{"turns": [{"output_len": 4}]}`, `"prompt" or its length as "input_len"`},
		{"zero input", DatasetSessions, `{"turns": [{"input_len": 0}]}`, `"input_len" must be in`},
		{"huge output", DatasetSessions, `{"turns": [{"prompt": "x", "output_len": 99999999999}]}`, "output_len"},
		{"negative think", DatasetSessions, `{"turns": [{"prompt": "a"}, {"prompt": "b", "think_ms": -1}]}`, `"think_ms" -1 is outside`},
		{"negative think on the first turn", DatasetSessions, `{"turns": [{"prompt": "a", "think_ms": -1}, {"prompt": "b"}]}`, `turn 1: "think_ms" -1 is outside`},
		{"both system forms", DatasetSessions, `{"system": "s", "system_len": 3, "turns": [{"prompt": "a"}]}`, "not both"},
		{"bad id", DatasetSessions, `{"id": [1], "turns": [{"prompt": "a"}]}`, `"id" must be a string or a number`},
		{"empty id", DatasetSessions, `{"id": "", "turns": [{"prompt": "a"}]}`, `"id" is empty`},
		// tasks
		{"unknown after", DatasetAgent, `{"calls": [{"id": "a", "prompt": "x"}, {"after": ["z"], "prompt": "y"}]}`, `names "z"`},
		{"forward after", DatasetAgent, `{"calls": [{"id": "a", "after": ["b"], "prompt": "x"}, {"id": "b", "prompt": "y"}]}`, `names "b"`},
		{"self after", DatasetAgent, `{"calls": [{"id": "a", "after": ["a"], "prompt": "x"}]}`, `names "a"`},
		{"after twice", DatasetAgent, `{"calls": [{"id": "a", "prompt": "x"}, {"id": "b", "prompt": "y"}, {"after": ["a", "b", "a"], "prompt": "z"}]}`, `names "a" twice`},
		{"prompt and length", DatasetSessions, `{"turns": [{"prompt": "a", "input_len": 50}]}`, `give "prompt" or "input_len", not both`},
		{"duplicate id", DatasetAgent, `{"calls": [{"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"}]}`, "used twice"},
		{"delay with after", DatasetAgent, `{"calls": [{"prompt": "x"}, {"prompt": "y", "delay_ms": 5}]}`, "delay_ms"},
		{"negative tool", DatasetAgent, `{"calls": [{"prompt": "x", "tool_ms": -3}]}`, `"tool_ms" -3`},
		{"no calls", DatasetAgent, `{"calls": []}`, `"calls" is missing or empty`},
		{"empty call id", DatasetAgent, `{"calls": [{"id": "", "prompt": "x"}]}`, `"id" is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := t.TempDir() + "/" + tt.dataset + ".jsonl"
			good := `{"turns": [{"prompt": "fine"}]}`
			if tt.dataset == DatasetAgent {
				good = `{"calls": [{"prompt": "fine"}]}`
			}
			if err := os.WriteFile(path, []byte(good+"\n"+tt.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := New(fileConfig(tt.dataset, path), DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), ":2") {
				t.Errorf("err = %v, want one naming line 2 and saying %q", err, tt.want)
			}
		})
	}
}

func TestReadFlowFilesEmpty(t *testing.T) {
	for _, ds := range []string{DatasetSessions, DatasetAgent} {
		path := t.TempDir() + "/empty.jsonl"
		if err := os.WriteFile(path, []byte("\n\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := New(fileConfig(ds, path), DefaultConfig()); err == nil || !strings.Contains(err.Error(), "no usable") {
			t.Errorf("%s: err = %v, want no usable flow", ds, err)
		}
	}
}

func TestReadFlowFilesDuplicateIDsStayApart(t *testing.T) {
	path := t.TempDir() + "/dup.jsonl"
	body := `{"id": "x", "turns": [{"prompt": "a"}]}` + "\n" + `{"id": "x", "turns": [{"prompt": "b"}]}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := New(fileConfig(DatasetSessions, path), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if a, b := src.Flow(0).ID, src.Flow(1).ID; a != "x" || b != "x@2" {
		t.Errorf("ids %q and %q, want x and x@2", a, b)
	}
}

func TestSampleKeepsTheLimit(t *testing.T) {
	wc := fileConfig(DatasetAgent, "testdata/tasks.jsonl")
	wc.Limit, wc.NoShuffle = 2, false
	src, err := New(wc, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 2 || !strings.Contains(src.String(), "2 tasks sampled from 3 usable of 3 entries") {
		t.Errorf("len %d, %s", src.Len(), src.String())
	}
}

// A sessions file that begins with a UTF-8 byte-order mark reads as
// without it.
func TestReadSessionsAfterABOM(t *testing.T) {
	b, err := os.ReadFile("testdata/sessions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bom.jsonl")
	if err := os.WriteFile(path, append([]byte("\xef\xbb\xbf"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := New(fileConfig(DatasetSessions, path), DefaultConfig())
	if err != nil || src.Len() != 3 || src.Flow(0).ID != "chat-1" {
		t.Fatalf("%v, %v", src, err)
	}
}
