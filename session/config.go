package session

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/goodput-dev/goodput/internal/bom"
	"github.com/goodput-dev/goodput/workload"
)

// Dataset names of the flow formats, values of --dataset-name beside
// workload's.
const (
	DatasetSessions = "sessions" // the sessions JSON Lines format (ReadSessions)
	DatasetAgent    = "agent"    // the agent task JSON Lines format (ReadTasks)
)

// DefaultHeader is the HTTP header that carries each request's session or
// task id by default, for routers that keep a session on one replica.
const DefaultHeader = "x-session-id"

// Limits that turn typos into errors.
const (
	MaxCalls = 10_000 // calls of one flow
)

// Config shapes the sessions and tasks of a run. Each field names its flag;
// the prompts' lengths, the dataset file, the seed and the sampling come
// from the workload.Config beside it. Start from DefaultConfig.
type Config struct {
	// MultiTurn makes sessions of --dataset-name random (synthetic
	// sessions) or sharegpt (every turn of each conversation)
	// (--multi-turn). The sessions and agent datasets are flows whatever
	// it says.
	MultiTurn bool
	// Turns is how many turns a synthetic session has (--session-turns).
	Turns Span
	// MaxTurns keeps at most this many turns of a dataset's sessions
	// (--session-max-turns); 0 keeps them all.
	MaxTurns int
	// Think is the think time before each turn after the first, for turns
	// whose dataset gives none (--think-time).
	Think Think
	// Header names the HTTP header that carries the session or task id on
	// every request (--session-header); empty sends none.
	Header string
}

// DefaultConfig returns three-turn synthetic sessions without think time,
// their id in x-session-id.
func DefaultConfig() Config {
	return Config{Turns: Span{3, 3}, Header: DefaultHeader, Think: Think{Kind: ThinkFixed}}
}

// Enabled reports whether wc and c describe flows rather than independent
// requests.
func Enabled(wc workload.Config, c Config) bool {
	return c.MultiTurn || wc.Dataset == DatasetSessions || wc.Dataset == DatasetAgent
}

// IsDataset reports whether name is one of this package's datasets.
func IsDataset(name string) bool { return name == DatasetSessions || name == DatasetAgent }

// Validate reports every problem of wc and c as a flow workload, each
// naming its flag.
func Validate(wc workload.Config, c Config) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch wc.Dataset {
	case workload.DatasetRandom, workload.DatasetShareGPT:
		if !c.MultiTurn {
			bad("--dataset-name %s sends independent requests: add --multi-turn for sessions", wc.Dataset)
		}
		if err := wc.Validate(); err != nil {
			errs = append(errs, err)
		}
	case DatasetSessions, DatasetAgent:
		if wc.Path == "" {
			bad("--dataset-name %s needs --dataset-path", wc.Dataset)
		}
		if wc.Custom.OutputLen < 1 || wc.Custom.OutputLen > workload.MaxOutputTokens {
			bad("--custom-output-len must be in [1, %d], got %d", workload.MaxOutputTokens, wc.Custom.OutputLen)
		}
		if wc.Limit < 0 {
			bad("--num-prompts must be ≥ 0, got %d", wc.Limit)
		}
		if err := wc.Request.Validate(); err != nil {
			errs = append(errs, err)
		}
	default:
		bad("--multi-turn takes --dataset-name random (synthetic sessions) or sharegpt (every turn), not %q", wc.Dataset)
	}
	if c.Turns.Lo < 1 || c.Turns.Hi < c.Turns.Lo || c.Turns.Hi > MaxCalls {
		bad("--session-turns %s: want 1 ≤ low ≤ high ≤ %d", c.Turns, MaxCalls)
	}
	if c.MaxTurns < 0 {
		bad("--session-max-turns must be ≥ 0, got %d", c.MaxTurns)
	}
	if err := c.Think.validate(); err != nil {
		bad("--think-time: %v", err)
	}
	if c.Header != "" && !validHeader(c.Header) {
		bad("--session-header %q is not an HTTP header name", c.Header)
	}
	return errors.Join(errs...)
}

func (t Think) validate() error {
	switch t.Kind {
	case ThinkFixed, "", ThinkExponential:
		if t.Mean < 0 || t.Mean > MaxThink {
			return fmt.Errorf("%v is outside [0, %v]", t.Mean, MaxThink)
		}
	case ThinkUniform:
		if t.Lo < 0 || t.Hi < t.Lo || t.Hi > MaxThink {
			return fmt.Errorf("uniform [%v, %v] is not within [0, %v]", t.Lo, t.Hi, MaxThink)
		}
	default:
		return fmt.Errorf("unknown distribution %q", t.Kind)
	}
	return nil
}

// validHeader reports whether s is an HTTP header name (RFC 9110 token).
func validHeader(s string) bool {
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return s != ""
}

// New validates wc and c and builds their Source, reading the dataset
// file when there is one. After New returns, the source does no I/O.
func New(wc workload.Config, c Config) (Source, error) {
	if err := Validate(wc, c); err != nil {
		return nil, err
	}
	if wc.Dataset == workload.DatasetRandom {
		return newSynthetic(wc, c), nil
	}
	f, err := os.Open(wc.Path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	r := bom.Skip(f)
	switch wc.Dataset {
	case DatasetSessions:
		return ReadSessions(r, wc.Path, wc, c)
	case DatasetAgent:
		return ReadTasks(r, wc.Path, wc, c)
	}
	return ReadShareGPT(r, wc.Path, wc, c)
}
