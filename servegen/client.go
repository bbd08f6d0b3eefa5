package servegen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/internal/bom"
)

// Client is one client's statistics: its rate windows and its length
// windows.
type Client struct {
	Name    string // its trace file
	Windows []Window
	Lengths []Lengths
}

// End returns the end of the client's last rate window: the next window's
// start, taking the last window as long as the others (10 minutes in
// ServeGen's files).
func (c *Client) End() time.Duration {
	n := len(c.Windows)
	if n == 1 {
		return c.Windows[0].Start + 10*time.Minute
	}
	width := (c.Windows[n-1].Start - c.Windows[0].Start) / time.Duration(n-1)
	return c.Windows[n-1].Start + width
}

// windowEnd returns the end of rate window i.
func (c *Client) windowEnd(i int) time.Duration {
	if i+1 < len(c.Windows) {
		return c.Windows[i+1].Start
	}
	return c.End()
}

// Active counts the windows in which the client sent requests.
func (c *Client) Active() int {
	n := 0
	for _, w := range c.Windows {
		if w.Rate > 0 {
			n++
		}
	}
	return n
}

// traceSuffix and datasetSuffix end a chunk's two files.
const (
	traceSuffix   = "-trace.csv"
	datasetSuffix = "-dataset.json"
)

// Load reads the clients at path: one chunk's chunk-N-trace.csv (its
// chunk-N-dataset.json beside it), or a directory of such chunks, every
// client of a model, in the order of their numbers.
func Load(path string) ([]*Client, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	var traces []string
	if fi.IsDir() {
		if traces, err = filepath.Glob(filepath.Join(path, "chunk-*"+traceSuffix)); err != nil {
			return nil, fmt.Errorf("--dataset-path %s: %w", path, err)
		}
		if len(traces) == 0 {
			return nil, fmt.Errorf("--dataset-path %s: no chunk-N%s in the directory", path, traceSuffix)
		}
		sort.Slice(traces, func(i, j int) bool { return chunkNumber(traces[i]) < chunkNumber(traces[j]) })
	} else {
		if !strings.HasSuffix(path, traceSuffix) {
			return nil, fmt.Errorf("--dataset-path %s: want a ServeGen chunk-N%s, or the directory of a model's chunks", path, traceSuffix)
		}
		traces = []string{path}
	}
	clients := make([]*Client, 0, len(traces))
	for _, t := range traces {
		c, err := loadClient(t)
		if err != nil {
			return nil, err
		}
		clients = append(clients, c)
	}
	return clients, nil
}

func loadClient(tracePath string) (*Client, error) {
	f, err := os.Open(tracePath)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	c := &Client{Name: tracePath}
	if c.Windows, err = ReadWindows(bom.Skip(f), tracePath); err != nil {
		return nil, err
	}
	dsPath := strings.TrimSuffix(tracePath, traceSuffix) + datasetSuffix
	d, err := os.Open(dsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (want %s)", tracePath, errNoDataset, filepath.Base(dsPath))
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if c.Lengths, err = ReadLengths(bom.Skip(d), dsPath); err != nil {
		return nil, err
	}
	return c, nil
}

// chunkNumber is N of a path ending chunk-N-trace.csv; -1 if none.
func chunkNumber(path string) int {
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "chunk-"), traceSuffix)
	n, err := strconv.Atoi(base)
	if err != nil {
		return -1
	}
	return n
}

// LengthsAt returns the client's length distributions in force at t, from
// the start of the period.
func (c *Client) LengthsAt(t time.Duration) Lengths { return lengthsAt(c.Lengths, t) }

// Multimodal reports whether the client's prompts are a multimodal
// model's, their lengths the sum of text and media tokens.
func (c *Client) Multimodal() bool {
	return len(c.Lengths) > 0 && len(c.Lengths[0].Input) > 0 && len(c.Lengths[0].Input) != len(textInput)
}
