package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/transport"
	"github.com/goodput-dev/goodput/version"
	"github.com/goodput-dev/goodput/workload"
)

// Outcome is what a finished (or interrupted) run produced.
type Outcome struct {
	Result    *metrics.Result
	Run       load.Result
	Generator Generator
	Tokens    load.TokenCheck
	Warnings  []string // plain-words problems with the run itself
	Notes     []string // what was run, for the summary heading
	// Findings are what the run found that bears on its numbers but is no
	// fault (answers that ended before their length without --ignore-eos),
	// printed after Notes and kept in the summary file.
	Findings    []string
	RecordsPath string // empty when no --result-dir
	// RecordsWritten is how many records reached RecordsPath whole.
	RecordsWritten int64
	// SummaryPath, VLLMPath and ServerPath name the files written; each
	// is empty when its file was not asked for or could not be written.
	SummaryPath string
	VLLMPath    string
	// ResultPath is vLLM's result file (--save-result), where vLLM
	// writes it.
	ResultPath string
	// Model is the model the run asked for (--model or the server's).
	Model string
	// ModelID is vLLM's model_id of the run, which names its result
	// file: --model, else the root of the server's first model.
	ModelID string
	// VLLM holds vLLM's own summary figures: its peaks in every run that
	// measured, the others when the run collected them (a vLLM result
	// file, or VLLMFile.Collect).
	VLLM *VLLMFigures
	// Gone says the server was unreachable when the run ended, though the
	// plan ran to its end (too few requests were left for the run to be
	// stopped): its last requests failed to connect. "" otherwise.
	Gone string
	// Stopped says why the run stopped before its plan ended other than by
	// an interruption (the server became unreachable); "" when it did not.
	// Every record measured is kept, and the record file's trailer marks
	// the run as cut short; Run.Interrupted stays false, since nobody
	// interrupted it.
	Stopped string
	// Server is the server's own account of the run from its /metrics (nil
	// with NoServerMetrics); ServerSeries the scrapes it came from, saved
	// as <name>.server.json beside the records.
	Server       *serverview.Comparison
	ServerSeries *promscrape.Series
	ServerPath   string
	// Servers is each endpoint's account of a run spread over several
	// (Server and ServerSeries are then nil).
	Servers []EndpointServer
	// PrefixReuse is a replayed trace's own theoretical prefix reuse over
	// the requests answered; nil for workloads that do not know theirs.
	PrefixReuse *PrefixReuse
	// Header is the run's record header: its start, labels and
	// configuration, as the record file begins.
	Header record.Header
	// Probes is what the probe requests beside the run measured
	// (--probe-request-rate); nil when none were asked for.
	Probes *Probes
}

// epochLead is how far ahead of the set-up of the record files a run's
// epoch is put.
const epochLead = 5 * time.Millisecond

// Run executes one benchmark. Progress goes to progress (a live line when
// terminal is true, periodic plain lines otherwise; nil for none). Records
// are written to cfg.ResultDir as they complete, so an interrupted run keeps
// everything it measured; Run then still returns an Outcome, with
// Run.Interrupted set.
//
// When the run measured but could not write a file (a full disk), Run
// returns both its Outcome, whose Result holds every measured request, and
// an error holding a *SaveError per file; the caller should print the
// summary and then the error. A record file that cannot be written stops
// the run at once unless cfg.IgnoreWriteErrors. Before anything is sent,
// Run refuses files of an earlier run of the same --run-name
// (ErrResultExists) unless cfg.Overwrite.
func Run(ctx context.Context, cfg Config, progress io.Writer, terminal bool) (*Outcome, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var files resultFiles
	var nameStart time.Time
	if cfg.ResultDir != "" {
		if err := os.MkdirAll(cfg.ResultDir, 0o755); err != nil {
			return nil, fmt.Errorf("--result-dir: %w", err)
		}
		// Default names carry the run's start: the agreed one of a
		// sharded run, so that its shards' names match.
		nameStart = cfg.StartAt
		if nameStart.IsZero() {
			nameStart = time.Now()
		}
		var err error
		if files, err = chooseFiles(cfg, nameStart); err != nil {
			return nil, err
		}
	}
	adapter, _ := backend.Lookup(cfg.Backend)
	adapter = adapter.WithUsage(cfg.Usage).WithMaxTokensField(cfg.MaxTokensField)
	if cfg.VLLMResult || cfg.VLLMFile.Save && cfg.VLLMFile.Detailed || cfg.Tokenizer != nil {
		adapter = adapter.WithText() // generated_texts, or output tokens counted from text
	}
	if cfg.NoStream {
		whole, err := adapter.WithoutStreaming()
		if err != nil {
			return nil, err // Validate said so first
		}
		adapter = whole
	}
	headers := cfg.Headers.Clone()
	if headers == nil {
		headers = http.Header{}
	}
	if cfg.APIKey != "" && headers.Get("Authorization") == "" {
		headers.Set("Authorization", "Bearer "+cfg.APIKey)
	}

	cfg.Arrival.Unit = flowUnit(&cfg)
	preloaded, err := fitToDataset(&cfg)
	if err != nil {
		return nil, err
	}
	plan, err := cfg.Arrival.Plan()
	if err != nil {
		return nil, err
	}
	conns := plan.Concurrency
	if plan.Closed != nil {
		conns = plan.Closed.Concurrency
	}
	if conns == 0 {
		conns = 256
	}
	if n := expected(plan); n > 0 {
		// No more are ever in flight: 20 requests under --max-concurrency
		// 10000 dialled 645 connections (the pool's spares scale with it).
		conns = min(conns, n)
	}
	copts := load.ClientOptions{Conns: conns, Insecure: cfg.Insecure, NoKeepAlive: cfg.NoKeepAlive,
		Kind: cfg.Transport, Cold: cfg.ColdConnections}
	client := load.NewClient(copts)
	defer client.CloseIdleConnections()
	tr, err := load.NewTransport(cfg.BaseURL, copts)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	var probeTr transport.Transport
	if cfg.ProbeRate > 0 {
		// The probes' own connection, so that they neither wait for one
		// of the run's nor count among its dials.
		po := copts
		po.Conns = 1
		if probeTr, err = load.NewTransport(cfg.BaseURL, po); err != nil {
			return nil, err
		}
		defer probeTr.Close()
	}

	srv := newServer(client, cfg.BaseURL, headers, cfg.RequestTimeout)
	srv.notice = progress
	out := &Outcome{}
	if plan.Warning != "" {
		out.Warnings = append(out.Warnings, plan.Warning)
	}
	switch err := srv.waitReady(ctx, cfg.ReadyTimeout); {
	case errors.Is(err, errNoReadyRoute):
		out.Notes = append(out.Notes, "server has neither /health nor /v1/models: its readiness was not checked")
	case err != nil:
		return nil, err
	}
	if err := waitEndpoints(ctx, cfg, client, headers); err != nil {
		return nil, err
	}
	model := cfg.Model
	shownModel := model
	// vllmModel is the model_id of vLLM's result, which names its file:
	// --model, else the first model's root, as vLLM takes it.
	vllmModel := model
	switch {
	case model != "":
	case adapter.Name() == "tgi" || adapter.Name() == "llamacpp":
		// Their protocols need no model name; ask only to say which it was.
		shownModel = srv.modelName(ctx, adapter.Name())
		vllmModel = shownModel
	default:
		first, err := srv.firstListed(ctx)
		if err != nil {
			return nil, err
		}
		model, shownModel, vllmModel = first.ID, first.ID, cmp.Or(first.Root, first.ID)
	}

	wl := cfg.Workload
	if wl.Limit == 0 && cfg.Arrival.NumPrompts > 0 {
		wl.Limit = cfg.Arrival.NumPrompts
	}
	// The name sent in requests; --served-model-name when it differs.
	wire := model
	if cfg.Request.ServedModelName != "" {
		wire = cfg.Request.ServedModelName
	}
	if cfg.Model != "" {
		flag := "--model"
		if cfg.Request.ServedModelName != "" {
			flag = "--served-model-name"
		}
		if w := srv.unlistedModel(ctx, wire, flag); w != "" {
			out.Warnings = append(out.Warnings, w)
		}
	}
	useIDs, note, warning, err := chooseIDs(ctx, cfg, srv, adapter, wire, headers)
	if err != nil {
		return nil, err
	}
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	if warning != "" {
		out.Warnings = append(out.Warnings, warning)
	}
	wl.FitSeqs = plannedSeqs(plan)
	sized, err := sonnetSizing(ctx, cfg, wl, srv, adapter, wire)
	if err != nil {
		return nil, err
	}
	if wl.SonnetCount = sized.count; sized.count.Formatted != nil {
		preloaded = nil // read ahead by the bare text's sizing
	}
	if sized.note != "" {
		out.Notes = append(out.Notes, sized.note)
	}
	if sized.warn != "" {
		out.Warnings = append(out.Warnings, sized.warn)
	}
	rc, warns, err := buildContent(ctx, cfg, wl, srv, adapter, wire, useIDs, preloaded)
	if err != nil {
		return nil, err
	}
	out.Warnings = append(out.Warnings, warns...)
	src, fsrc, lengths, fit := rc.src, rc.fsrc, rc.lengths, rc.fit
	var chatTemplate string // the run configuration's chat_template
	if fsrc == nil {
		tp, err := clientTemplate(ctx, cfg, wl, srv, adapter, wire, src, sized.r)
		if err != nil {
			return nil, err
		}
		if tp.kwargs && !adapter.Chat() {
			// They went into the rendered prompt, as vLLM's client
			// puts them; a completions body has no place for them.
			cfg.Request.ChatTemplateKwargs = nil
		}
		src, chatTemplate = tp.src, tp.config
		if tp.lengths != "" {
			lengths = tp.lengths
		}
		out.Notes = append(out.Notes, tp.notes...)
		out.Warnings = append(out.Warnings, tp.warns...)
	}
	if cfg.Request.ChatTemplateKwargs != nil && !adapter.Chat() {
		// No template renders these prompts with them: every request
		// would fail alike. vLLM's client leaves them unused too.
		cfg.Request.ChatTemplateKwargs = nil
		out.Notes = append(out.Notes, fmt.Sprintf("--chat-template-kwargs: not applied: backend %s sends its prompts as they are, and this workload's prompts are not rendered with the chat template on the client (as under vLLM, which leaves them unused here too); --backend openai-chat has the server apply them", adapter.Name()))
	}
	if fsrc == nil {
		if w := cycleWarning(src, expected(plan)); w != "" {
			out.Warnings = append(out.Warnings, w)
		}
	}

	lplan := loadPlan(plan, cfg)
	if srv.idleHoldsWorker() && len(lplan.Offsets) > 0 && !cfg.ColdConnections {
		lplan.IdleHoldsWorker = true
		out.Notes = append(out.Notes, fmt.Sprintf("Connections: %s gives every open connection one of its HTTP workers, which an idle one holds, so they are opened at most %v before their requests, not a second ahead: other clients of the server (its health checks and /metrics scrapes, the probes) do not queue behind them",
			srv.software, load.AheadWindow))
	}
	notes := newItemNotes(src)
	reqOpts := wl.RequestOptions()
	doer := &load.HTTP{
		Transport: tr, Adapter: adapter, BaseURL: cfg.BaseURL, Endpoint: cfg.Endpoint, Timeout: cfg.RequestTimeout,
		Request: func(seq int64) (backend.Request, int) {
			it := src.Item(seq)
			notes.put(seq, it)
			req := backend.Request{
				Model: model, MaxTokens: it.OutputTokens, MinTokens: wl.Request.MinTokensFor(it),
				IgnoreEOS: reqOpts.IgnoreEOS, Extra: cfg.Extra, Headers: headers,
			}
			cfg.Request.apply(&req, seq, cfg.Arrival.Seed)
			switch {
			case adapter.Chat():
				for _, m := range it.Messages() {
					req.Messages = append(req.Messages, backend.Message{Role: m.Role, Content: m.Content})
				}
				req.Tools = it.Tools
			case useIDs && it.PromptTokenIDs != nil:
				req.PromptTokenIDs = it.PromptTokenIDs
			default:
				req.Prompt = it.Prompt
			}
			return req, it.InputTokens
		},
	}

	if doer.Router, err = cfg.router(); err != nil {
		return nil, err
	}
	fd := flowsOver(fsrc, doer, adapter, backend.Request{Model: wire, MinTokens: wl.Request.MinTokens,
		IgnoreEOS: wl.Request.IgnoreEOS, Extra: cfg.Extra, Headers: headers}, cfg.Sessions.Header, func(r *backend.Request, seq int64) {
		cfg.Request.apply(r, seq, cfg.Arrival.Seed)
	})
	out.Model, out.ModelID = shownModel, vllmModel
	if note, err := warmUp(ctx, cfg, doer, plan); err != nil {
		return nil, err
	} else if note != "" {
		out.Notes = append(out.Notes, note)
	}
	if cfg.NoStream {
		out.Notes = append(out.Notes, NoStreamNote)
	}
	out.Notes = append(describe(cfg, shownModel, plan, content(src, fsrc), lengths), out.Notes...)
	out.Notes = append(out.Notes, spreadNotes(cfg, fsrc, adapter.Chat())...)
	runCfg := map[string]any{
		"base_url": human.URL(cfg.BaseURL), "backend": adapter.Name(), "endpoint": cfg.Endpoint, "model": shownModel,
		"target": cfg.Target, "arrival": plan.String(), "workload": content(src, fsrc).String(),
		"request_rate": rateJSON(cfg.Arrival.RequestRate), "burstiness": cfg.Arrival.Burstiness,
		"max_concurrency": cfg.Arrival.MaxConcurrency, "num_prompts": cfg.Arrival.NumPrompts,
		"duration_seconds": cfg.Arrival.Duration.Seconds(), "seed": cfg.Arrival.Seed,
		"ignore_eos": reqOpts.IgnoreEOS, "min_tokens": wl.Request.MinTokens, "num_warmups": cfg.Warmups,
		"warmup_seconds": cfg.WarmupTime.Seconds(), "percentile_method": cfg.Metrics.Method.String(),
		"dataset": wl.Dataset, "random_input_len": wl.Random.InputLen, "random_output_len": wl.Random.OutputLen,
		"random_range_ratio": wl.Random.RangeRatio, "random_prefix_len": wl.Random.PrefixLen,
	}
	addSpreadConfig(runCfg, cfg)
	if cfg.ProbeRate > 0 {
		runCfg["probe_request_rate"] = cfg.ProbeRate
	}
	if o := wl.Random.OutputRangeRatio; o != nil {
		runCfg["random_output_range_ratio"] = *o
	}
	if wl.Scenario != "" {
		runCfg["traffic_scenario"] = wl.Scenario
	}
	if cfg.NoStream {
		runCfg["stream"] = false
	}
	if fit.Active() {
		runCfg["text_fit"] = fit
	}
	if chatTemplate != "" {
		runCfg["chat_template"] = chatTemplate
	}
	var scraper *serverview.Recorder
	if !cfg.NoServerMetrics && !cfg.several() {
		murl := cfg.MetricsURL
		if murl == "" {
			if murl, err = serverview.DefaultMetricsURL(cfg.BaseURL); err != nil {
				return nil, fmt.Errorf("--metrics-url: %w", err)
			}
		}
		// Its first scrape is taken now, before the epoch is set, so that
		// the series brackets the run.
		scraper = serverview.Start(ctx, murl, serverview.Options{Interval: cfg.ScrapeInterval, Model: model, Client: client,
			Header: scrapeHeader(murl, cfg.BaseURL, headers)})
		defer scraper.Stop() // a no-op once the run has stopped it
	}
	eps, err := startScrapers(ctx, cfg, model, client, headers)
	if err != nil {
		return nil, err
	}
	defer eps.stop() // a no-op once the run has stopped them

	if cfg.Profile {
		srv.profile(ctx, "/start_profile", out)
	}
	header, err := record.NewHeader("goodput "+Version, runCfg)
	if err != nil {
		return nil, err
	}
	header.Host, _ = os.Hostname()
	header.Node = cfg.Node
	if header.Shard = shardOf(cfg, plan, time.Now()); header.Shard != nil {
		header.Shard.Attempt = files.attempt
		// Shards on several machines merge onto one clock only as well as
		// their clocks agree: measure this one against the server's.
		if header.Clock, err = measureClock(ctx, client, srv.base, cfg.StartAt); err != nil {
			out.Notes = append(out.Notes, fmt.Sprintf("clock offset from the server not measured: %v", err))
		}
	}
	if !cfg.StartAt.IsZero() {
		if late := time.Since(cfg.StartAt) + epochLead; late > lateTolerance {
			if err := startLate(&lplan, late, header.Shard, out); err != nil {
				return nil, err
			}
		}
	}
	// The first requests (and whatever builds them on first use, such as
	// the built-in tokenizer) are built before the epoch is chosen, so that
	// they leave on time.
	prepareFirst(lplan, doer, fsrc)
	// So are the connections the start needs, without sending anything,
	// and the goroutines it sends from (flows start theirs as they go).
	warmErr := load.WarmFirst(ctx, lplan, doer)
	if fsrc == nil {
		lplan.Crew = load.HireFirst(lplan)
		defer lplan.Crew.Dismiss() // when the run did not take it
	}
	// The header's Start is the instant every record time counts from: by
	// default a moment after now, once the files below are open, so that
	// the first requests are not late by the set-up.
	header.Start = time.Now().Add(epochLead)
	if !cfg.StartAt.IsZero() {
		header.Start = cfg.StartAt
	}
	lplan.Epoch = header.Start
	header.Labels = cfg.Labels
	out.Header = header
	obs := cfg.observe(header, model)

	var rw *record.Writer
	var syncRecords func() error
	if cfg.ResultDir != "" {
		recFile, err := openRecordFile(files.records, cfg.Overwrite)
		for tries := 0; errors.Is(err, ErrResultExists) && cfg.RunName == "" && tries < 100; tries++ {
			// Another run in the directory took the name the clock chose
			// since chooseFiles looked (runs started in the same second):
			// this one takes the next free name, as chooseFiles would.
			if files, err = chooseFiles(cfg, nameStart); err != nil {
				return nil, err
			}
			if header.Shard != nil {
				header.Shard.Attempt = files.attempt
			}
			recFile, err = openRecordFile(files.records, cfg.Overwrite)
		}
		if err != nil {
			return nil, err
		}
		out.RecordsPath = files.records
		defer recFile.Close()
		if rw, err = record.NewWriter(recFile, header); err != nil {
			return nil, fmt.Errorf("%s: %w", out.RecordsPath, err)
		}
		syncRecords = recFile.Sync
	}

	// A failed record write cancels the run (unless told to go on): the
	// runner then stops scheduling and drains, as after Ctrl-C.
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	sum := metrics.NewSummary(cfg.Metrics)
	prog := newProgress(progress, terminal, expectedRequests(plan, fsrc))
	prog.quiet, prog.timeout = doer.Quiet, cfg.RequestTimeout
	vl := newVLLMCollector(cfg.VLLMResult || cfg.VLLMFile.Save || cfg.VLLMFile.Collect, plan.Closed != nil, firstDue(plan))
	recs := make(chan *record.Record, 1024)
	// consumed delivers the consumer's account of the record file.
	type written struct {
		fail              *SaveError // the first failed write, nil if none
		measured, lastSeq int64      // records seen; the last one written whole
		tokens            int64      // output tokens of every record, failed and warm-up ones too
	}
	consumed := make(chan written, 1)
	// A server that became unreachable cancels the run too (see
	// unreachable).
	gone := unreachable{url: cfg.BaseURL}
	// The consumer owns rw, prog, vl and gone; Run's goroutine reads them
	// only after consumed delivers.
	go func() {
		var fail *SaveError
		var measured, lastSeq, tokens int64
		for r := range recs {
			tokens += int64(r.OutputTokens)
			if why := gone.add(r); why != "" && runCtx.Err() == nil {
				stopRun(&unreachableError{why})
			}
			for k, v := range cfg.Labels {
				if r.Labels == nil {
					r.Labels = map[string]string{}
				}
				r.Labels[k] = v
			}
			if cfg.Tokenizer != nil {
				countFromText(r, cfg.Tokenizer)
			}
			notes.take(r)
			measured++
			if rw != nil && fail == nil {
				if err := rw.Write(r); err != nil {
					fail = &SaveError{Path: files.records, Err: err, Records: true, LastSeq: lastSeq, Stopped: !cfg.IgnoreWriteErrors}
					if fail.Stopped {
						stopRun(errRecordsLost)
					}
				} else {
					lastSeq = r.Seq
				}
			}
			sum.Add(r)
			obs.Record(r)
			prog.add(r)
			vl.add(r)
		}
		if fail != nil {
			fail.Measured = measured
		}
		consumed <- written{fail, measured, lastSeq, tokens}
	}()
	stopTicker := prog.start()
	send := observed(doer, obs)
	if fd != nil {
		fd.send = send
	}
	host := readHost()
	probes := startProbes(runCtx, cfg.ProbeRate, probeTr, doer, probeRequest(cfg, model, headers))
	res, runErr := runLoad(runCtx, lplan, send, fd, recs)
	out.Probes = probes.end()
	host.end()
	if scraper != nil {
		out.ServerSeries = scraper.Stop()
	}
	epSeries := eps.stop()
	if cfg.Profile {
		srv.profile(context.WithoutCancel(ctx), "/stop_profile", out)
	}
	close(recs)
	w := <-consumed
	obs.End()
	recFail := w.fail
	stopTicker()
	prog.finish()
	if runErr != nil {
		return nil, runErr
	}
	// Stopped for a write error, the run was not interrupted by the user.
	res.Interrupted = res.Interrupted && ctx.Err() != nil
	out.Run = res
	var ue *unreachableError
	if errors.As(context.Cause(runCtx), &ue) && ctx.Err() == nil {
		out.Stopped = ue.why
	} else if !res.Interrupted {
		out.Gone = gone.atEnd(w.measured)
	}
	var saveErrs []error
	if rw != nil {
		// A run stopped for its server is cut short, as an interrupted one.
		t := record.Trailer{Interrupted: res.Interrupted || out.Stopped != "", End: res.End}
		switch {
		case out.Stopped != "":
			t.Reason = "server unreachable"
		case res.Interrupted:
			t.Reason = "interrupted"
		}
		if recFail == nil {
			err := rw.Close(t)
			if err == nil {
				err = syncRecords()
			}
			if err != nil {
				// Every record was handed to the file; the end marker or
				// the flush to disk failed.
				recFail = &SaveError{Path: files.records, Err: err, Records: true, Measured: w.measured, LastSeq: w.lastSeq}
			}
		}
		out.RecordsWritten = rw.Count()
		if recFail != nil {
			recFail.Written = rw.Count()
			if recFail.Written > 0 {
				recFail.LastLine = int(recFail.Written) + 1 // the header is line 1
			}
			saveErrs = append(saveErrs, recFail)
		}
	}
	out.Result = sum.Close()
	out.PrefixReuse = notes.prefixReuse()
	if t, ok := src.(interface{ Err() error }); ok && t.Err() != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the workload could not be read again during the run, and requests after that were sent with a one-token prompt: %v", t.Err()))
	}
	if out.Probes != nil {
		out.Notes = append(out.Notes, probeNote(out.Probes))
	}
	// The most requests the run kept at the server at once, when its load
	// had a bound: a closed loop's or --max-concurrency's (and one probe),
	// not sessions' or tasks', whose fan-out is theirs.
	bound := 0
	if lplan.Concurrency > 0 && fsrc == nil {
		bound = lplan.Concurrency
		if cfg.ProbeRate > 0 {
			bound++
		}
	}
	if out.ServerSeries != nil {
		start, end := serverview.RunWindow(res.Epoch, out.Result)
		if out.Server, err = serverview.CompareBounded(out.ServerSeries, start, end, out.Result, bound); err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("server metrics: %v", err))
		}
		if out.Server != nil && out.PrefixReuse != nil {
			out.Server.TracePrefixHitRate = &out.PrefixReuse.HitRate
		}
		if files.server != "" {
			if err := writeJSON(files.server, out.ServerSeries); err != nil {
				saveErrs = append(saveErrs, &SaveError{Path: files.server, Err: err})
			} else {
				out.ServerPath = files.server
			}
		}
	}
	if epSeries != nil {
		w, errs := endpointServers(out, epSeries, cfg.BaseURLs, files.server, bound)
		out.Warnings, saveErrs = append(out.Warnings, w...), append(saveErrs, errs...)
	}
	probesInServerView(out)
	out.Tokens = doer.TokenCheck()
	if res.WarmErr == nil && warmErr != nil {
		res.WarmErr = warmErr
	}
	out.Generator = checkGenerator(selfCheck{run: res, threshold: cfg.LagThreshold, open: plan.Open != nil, capped: lplan.Concurrency > 0 || fsrc != nil, gap: meanGap(lplan.Offsets),
		conns: tr.Stats(), cpu: host.cpu, wall: host.wall, tokens: w.tokens, cores: host.cores,
		busy: host.busy, steal: host.steal, samples: host.samples, sched: host.sched, runQueue: host.runQueue, throttle: host.throttle, serverLocal: serverLocal(cfg.BaseURL), serverInProcess: cfg.ServerInProcess})
	out.Warnings = append(out.Warnings, out.Generator.Warnings...)
	if w := tokenWarning(out.Tokens); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	if w := badCountWarning(out.Tokens); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	if w := overLimitWarning(out.Tokens, limitOnlyAsCompletionTokens(adapter, cfg.Extra)); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	if w := cutShortWarning(out.Tokens); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	if w := earlyStopWarning(out.Tokens, wl.IgnoreEOS()); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	if n := earlyStopNote(out.Tokens, wl.IgnoreEOS(), wl.Dataset); n != "" {
		out.Findings = append(out.Findings, n)
	}
	switch {
	case out.Gone != "":
		out.Warnings = append(out.Warnings, out.Gone)
	case out.Stopped != "":
		out.Warnings = append(out.Warnings, fmt.Sprintf("run stopped early: %s; %d requests were sent; everything measured is kept", out.Stopped, res.Sent))
	case res.Interrupted:
		out.Warnings = append(out.Warnings, fmt.Sprintf("run interrupted: %d of the planned requests were sent; everything measured is kept", res.Sent))
	}
	var serverHits *float64
	if out.Server != nil {
		serverHits = out.Server.PrefixCacheHitRate
	}
	if w := cacheWarning(out.Result, serverHits, wl); w != "" && fsrc == nil { // a session reuses its history on purpose
		out.Warnings = append(out.Warnings, w)
	}
	if w := retryWarning(out.Result, cfg.NoKeepAlive); w != "" {
		out.Warnings = append(out.Warnings, w)
	}
	if recFail != nil && recFail.Written < recFail.Measured {
		out.Warnings = append(out.Warnings, fmt.Sprintf("only %d of %d measured records reached %s: this summary is the one account of the others",
			recFail.Written, recFail.Measured, files.records))
	}
	if files.summary != "" {
		if err := writeSummary(files.summary, header, out); err != nil {
			saveErrs = append(saveErrs, &SaveError{Path: files.summary, Err: err})
		} else {
			out.SummaryPath = files.summary
		}
	}
	var offsets []time.Duration
	if plan.Open != nil {
		offsets = plan.Open.Offsets
	}
	saveErrs = append(saveErrs, out.writeVLLM(cfg, vl, vllmModel, header.Start, rpsChanges(cfg.Arrival, offsets, header.Start), files.vllm)...)
	return out, errors.Join(saveErrs...)
}

// errRecordsLost is the cause of a run stopped because its records could
// no longer be written.
var errRecordsLost = errors.New("records can no longer be written")

// firstDue is when the plan's first request is due, ns from the epoch: no
// request is sent before it.
func firstDue(p arrival.Plan) int64 {
	if p.Open == nil || len(p.Open.Offsets) == 0 {
		return 0
	}
	return int64(slices.Min(p.Open.Offsets))
}

// loadPlan turns the arrival plan into the runner's plan.
func loadPlan(p arrival.Plan, cfg Config) load.Plan {
	lp := load.Plan{Warmups: cfg.Warmups, WarmupTime: cfg.WarmupTime, Grace: cfg.Grace}
	if p.Open != nil {
		lp.Offsets = p.Open.Offsets
		lp.Seqs = p.Open.Seqs
		lp.Concurrency = p.Concurrency
		return lp
	}
	c := p.Closed
	lp.Concurrency, lp.Count, lp.Duration = c.Concurrency, c.Count, c.Duration
	lp.FirstSeq, lp.SeqStride = c.FirstSeq, c.SeqStride
	return lp
}

// meanGap is the mean time between an open loop's due times, 0 for
// fewer than two.
func meanGap(offsets []time.Duration) time.Duration {
	if len(offsets) < 2 {
		return 0
	}
	return (offsets[len(offsets)-1] - offsets[0]) / time.Duration(len(offsets)-1)
}

// plannedSeqs are the sequence numbers of the plan's requests, at most
// workload.MaxFitEach of them; none when --duration alone bounds a closed
// loop.
func plannedSeqs(p arrival.Plan) []int64 {
	n := min(expected(p), workload.MaxFitEach)
	seqs := make([]int64, n)
	for i := range seqs {
		if p.Open != nil {
			seqs[i] = p.Open.Seq(i)
		} else {
			seqs[i] = p.Closed.Seq(i)
		}
	}
	return seqs
}

// expected returns how many requests the plan will send, 0 when unknown.
func expected(p arrival.Plan) int {
	if p.Open != nil {
		return p.Open.Len()
	}
	return p.Closed.Count
}

func describe(cfg Config, model string, p arrival.Plan, src fmt.Stringer, lengths string) []string {
	var notes []string
	if cfg.Target != "" {
		notes = append(notes, "Target: "+cfg.Target)
	}
	if model == "" {
		model = "unknown (the server did not say; give --model to name it)"
	}
	notes = append(notes, fmt.Sprintf("Server: %s (%s), model %s", human.URL(cfg.BaseURL), cfg.Backend, model))
	// The plan's first line says what the load is; the rest (schedule
	// statistics) belongs to --dry-run.
	load, _, _ := strings.Cut(p.String(), "\n")
	notes = append(notes, "Load: "+load)
	wl := "Workload: " + src.String()
	if lengths != "" {
		wl += "; input lengths: " + lengths
	}
	notes = append(notes, wl)
	return notes
}

func rateJSON(r float64) any {
	if r > 1e300 {
		return "inf"
	}
	return r
}

// Version is the tool version written into run headers: the build's own
// (package version) unless the caller sets another.
var Version = version.String()

// elapsed formats a duration for progress lines.
func elapsed(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
