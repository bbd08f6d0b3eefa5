package sweeprun

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// virtualHeader is the record header of a virtual-time measurement of cfg
// under plan: what bench's header says of a run over HTTP, with extra
// settings of the workload added.
func (r *Runner) virtualHeader(plan arrival.Plan, cfg bench.Config, workload fmt.Stringer, simSeed uint64, extra map[string]any) (record.Header, error) {
	load, _, _ := strings.Cut(plan.String(), "\n")
	config := map[string]any{
		"virtual": true, "target": r.target, "arrival": load, "workload": workload.String(),
		"request_rate": rateJSON(cfg.Arrival.RequestRate), "max_concurrency": cfg.Arrival.MaxConcurrency,
		"burstiness": cfg.Arrival.Burstiness, "num_prompts": cfg.Arrival.NumPrompts, "seed": cfg.Arrival.Seed,
		"simulator_seed": simSeed, "num_warmups": cfg.Warmups, "warmup_seconds": cfg.WarmupTime.Seconds(),
		"percentile_method": cfg.Metrics.Method.String(),
	}
	for k, v := range extra {
		config[k] = v
	}
	header, err := record.NewHeader("goodput "+bench.Version, config)
	if err != nil {
		return record.Header{}, err
	}
	header.Labels = cfg.Labels
	return header, nil
}

// virtualOut takes a virtual-time measurement's records as the simulator
// emits them: into the summary, and into the record file of the result
// directory when there is one. The caller must call close when done.
type virtualOut struct {
	name, dir string // the measurement's, and the result directory ("": none)
	path      string // the record file; "" without a result directory
	header    record.Header
	f         *os.File
	buf       *bufio.Writer
	w         *record.Writer
	sum       *metrics.Summary
	end       int64 // the latest record's end
}

// openVirtualOut opens measurement name's record file in dir ("": none)
// and its summary.
func openVirtualOut(dir, name string, header record.Header, mo metrics.Options) (*virtualOut, error) {
	o := &virtualOut{name: name, dir: dir, header: header, sum: metrics.NewSummary(mo)}
	if dir == "" {
		return o, nil
	}
	o.path = filepath.Join(dir, name+".jsonl")
	var err error
	if o.f, err = os.Create(o.path); err != nil {
		return nil, fmt.Errorf("--result-dir: %w", err)
	}
	o.buf = bufio.NewWriterSize(o.f, 1<<20)
	if o.w, err = record.NewWriter(o.buf, header); err != nil {
		o.f.Close()
		return nil, fmt.Errorf("%s: %w", o.path, err)
	}
	return o, nil
}

// add writes rec and counts it.
func (o *virtualOut) add(rec *record.Record) error {
	o.end = max(o.end, rec.End)
	if o.w != nil {
		if err := o.w.Write(rec); err != nil {
			return fmt.Errorf("%s: %w", o.path, err)
		}
	}
	o.sum.Add(rec)
	return nil
}

// finish ends the measurement, simErr being how the simulator's run ended:
// it closes the record file and writes the summary file beside it, and
// returns the summary.
func (o *virtualOut) finish(simErr error) (*metrics.Result, error) {
	if simErr != nil {
		if errors.Is(simErr, context.Canceled) || errors.Is(simErr, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s interrupted: %w", o.name, simErr)
		}
		return nil, fmt.Errorf("%s: simulator: %w", o.name, simErr)
	}
	res := o.sum.Close()
	if o.w == nil {
		return res, nil
	}
	if err := o.w.Close(record.Trailer{End: o.end}); err != nil {
		return nil, fmt.Errorf("%s: %w", o.path, err)
	}
	if err := o.buf.Flush(); err != nil {
		return nil, fmt.Errorf("%s: %w", o.path, err)
	}
	err := o.f.Close()
	o.f = nil
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.path, err)
	}
	sf := bench.SummaryFile{Kind: summaryKind, Header: o.header, Records: o.path, Result: res}
	if err := writeJSONFile(filepath.Join(o.dir, o.name+summarySuffix), sf); err != nil {
		return nil, err
	}
	return res, nil
}

// close closes the record file if finish did not.
func (o *virtualOut) close() {
	if o.f != nil {
		o.f.Close()
	}
}
