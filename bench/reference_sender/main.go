// Command reference_sender is the compiled open-loop sender the runner is measured against
// (bench/reference_bench.ts): it sends the runner's saved schedule (schedule.csv: same requests,
// same offsets) with net/http, one goroutine per request sleeping until its due time, reads each
// SSE answer to its end, and prints one JSON summary. Standard library only.
//
//	reference_sender --schedule schedule.csv --url http://127.0.0.1:PORT/v1/chat/completions \
//	  --body-file body.json [--header "name: value" ...] [--idempotency-key-prefix RUN_ID] \
//	  [--rows rows.csv] [--summary-stage steady] [--cpu-window-ms FROM,TO]
//
// --cpu-window-ms has the summary give the process's CPU time between FROM and TO ms after ms 0
// (window_cpu_ms), read with getrusage at those instants: the CPU per request of a stretch of the
// run, start-up and the end left out.
//
// Send lag is the runner's `send_lag_ms` (schema/events.ts RequestRow): the instant the request's
// first byte was written to the socket − its scheduled time. Every connection the transport dials is
// a stampConn; httptrace's GotConn arms the connection the request was given with the request's row,
// and the connection's next Write (net/http writes the whole small request in one Flush of its
// bufio.Writer) stamps the time as that Write returns — as the runner stamps as its first write call
// returns. WroteHeaders would not do: it fires when the head is in the bufio buffer, before any byte
// reaches the socket. The stamp is read after WroteRequest, which fires once that write returned (the
// answer can come back first). A request whose call wrote nothing (no connection) gets the instant it
// was handed to the client, as the runner does.
//
// The pool is the runner's: up to 4096 keep-alive connections, idle ones closed after 4 s, up to 8 opened
// before ms 0 — net/http cannot open a connection without a request, so 8 concurrent copies of the
// request go first (not logged). Go's timers wake through epoll with a whole-millisecond timeout, so
// a sleeping goroutine often wakes up to ~1 ms after its due time: that is this sender's lag floor.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// t0 is ms 0 of the run: scheduled times are offsets from it.
var t0 time.Time

type row struct {
	id, stage   string
	scheduledMs float64
	sentNs      atomic.Int64 // first byte written, ns since t0; -1 not yet
	lagMs       float64      // NaN: never begun
	completedMs float64      // NaN: no complete answer
	status      int
	events      int
	outcome     string
}

// stampConn stamps, on the row armed by GotConn, the return of the first Write after arming.
type stampConn struct {
	net.Conn
	armed atomic.Pointer[row]
}

func (c *stampConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		if r := c.armed.Swap(nil); r != nil {
			r.sentNs.Store(int64(time.Since(t0)))
		}
	}
	return n, err
}

type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, "; ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "reference_sender: "+format+"\n", args...)
	os.Exit(code)
}

func main() {
	schedule := flag.String("schedule", "", "the runner's schedule.csv (request_id,scheduled_ms,case_id,class,stage,shard)")
	url := flag.String("url", "", "the URL every request is POSTed to")
	bodyFile := flag.String("body-file", "", "the request body, sent as is")
	var headers headerFlags
	flag.Var(&headers, "header", `a request header "name: value" (repeatable)`)
	maxConns := flag.Int("max-connections", 4096, "most connections to the host (the runner's maxConnectionsPerHost)")
	idleMs := flag.Int("idle-timeout-ms", 4000, "idle keep-alive connections older than this are closed (the runner's)")
	preconnect := flag.Int("preconnect", 8, "requests sent before ms 0 to open keep-alive connections (not logged)")
	maxLagMs := flag.Float64("max-send-lag-ms", 1000, "a request later than this at its turn is not sent (the runner's bound)")
	stage := flag.String("summary-stage", "steady", "the stage whose send lags the summary's percentiles cover")
	rowsFile := flag.String("rows", "", "write one CSV row per request here")
	keyPrefix := flag.String("idempotency-key-prefix", "", `send "idempotency-key: PREFIX:<request_id>:0" as the runner does with its run id`)
	cpuWindow := flag.String("cpu-window-ms", "", "FROM,TO: the summary's window_cpu_ms is the CPU time between these ms of the run")
	flag.Parse()
	windowFrom, windowTo := -1.0, -1.0
	if *cpuWindow != "" {
		a, b, ok := strings.Cut(*cpuWindow, ",")
		f, errF := strconv.ParseFloat(a, 64)
		t, errT := strconv.ParseFloat(b, 64)
		if !ok || errF != nil || errT != nil || !(f >= 0) || !(t > f) {
			fail(2, "--cpu-window-ms %q: expected FROM,TO with 0 ≤ FROM < TO", *cpuWindow)
		}
		windowFrom, windowTo = f, t
	}
	if *schedule == "" || *url == "" || *bodyFile == "" || *maxConns < 1 || *preconnect < 0 || !(*maxLagMs > 0) {
		fail(2, "--schedule, --url and --body-file are required; --max-connections ≥ 1, --preconnect ≥ 0, --max-send-lag-ms > 0")
	}
	rows, err := readSchedule(*schedule)
	if err != nil {
		fail(2, "%v", err)
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		fail(2, "--body-file: %v", err)
	}
	head := http.Header{"User-Agent": {""}} // an empty User-Agent is not sent: the runner sends none
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			fail(2, "--header %q: expected \"name: value\"", h)
		}
		head.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	dialer := &net.Dialer{}
	client := &http.Client{
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := dialer.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return &stampConn{Conn: c}, nil
			},
			MaxConnsPerHost:     *maxConns,
			MaxIdleConns:        *maxConns,
			MaxIdleConnsPerHost: *maxConns,
			IdleConnTimeout:     time.Duration(*idleMs) * time.Millisecond,
			DisableCompression:  true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       60 * time.Second,
	}
	send := func(r *row) {
		handed := time.Since(t0)
		// WroteRequest fires once the request's write has returned (after the stamp); a response can come
		// back before it, so the stamp is read only after it.
		wrote, once := make(chan struct{}), sync.Once{}
		trace := &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				if c, ok := info.Conn.(*stampConn); ok {
					c.armed.Store(r)
				}
			},
			WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(wrote) }) },
		}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
			http.MethodPost, *url, bytes.NewReader(body))
		if err != nil {
			fail(2, "--url: %v", err)
		}
		req.Header = head.Clone()
		if *keyPrefix != "" {
			req.Header.Set("Idempotency-Key", *keyPrefix+":"+r.id+":0")
		}
		resp, err := client.Do(req)
		if err != nil {
			r.outcome = "transport_error"
		} else {
			r.status = resp.StatusCode
			r.events, err = readEvents(resp.Body)
			resp.Body.Close()
			done := float64(time.Since(t0)) / 1e6
			<-wrote // an answer means the request was written
			switch {
			case err != nil:
				r.outcome = "stream_cut"
			case resp.StatusCode != 200:
				r.outcome = "http_error"
			default:
				r.outcome, r.completedMs = "ok", done
			}
		}
		sent := r.sentNs.Load()
		if sent < 0 {
			sent = int64(handed) // no byte written: the instant it was handed to the client, as the runner
		}
		r.lagMs = float64(sent)/1e6 - r.scheduledMs
	}

	t0 = time.Now()
	var warm sync.WaitGroup
	for i := 0; i < *preconnect; i++ {
		warm.Add(1)
		r := &row{id: fmt.Sprintf("warm-up-%d", i), lagMs: math.NaN(), completedMs: math.NaN()}
		r.sentNs.Store(-1)
		go func() { defer warm.Done(); send(r) }()
	}
	warm.Wait()

	// The main goroutine starts each request's goroutine at most `lead` before its due time, so
	// that only the next `lead` of the schedule sleeps at once; the goroutine sleeps until due.
	const lead = 50 * time.Millisecond
	var wg sync.WaitGroup
	t0 = time.Now()
	windowCPU := math.NaN()
	if windowFrom >= 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(t0.Add(time.Duration(windowFrom * 1e6))))
			c0 := cpuMs()
			time.Sleep(time.Until(t0.Add(time.Duration(windowTo * 1e6))))
			windowCPU = cpuMs() - c0
		}()
	}
	for i := range rows {
		r := &rows[i]
		due := t0.Add(time.Duration(math.Ceil(r.scheduledMs * 1e6)))
		if d := time.Until(due) - lead; d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(due))
			if late := float64(time.Since(t0))/1e6 - r.scheduledMs; late > *maxLagMs {
				r.lagMs, r.outcome = late, "not_sent"
				return
			}
			send(r)
		}()
	}
	wg.Wait()
	if *rowsFile != "" {
		if err := writeRows(*rowsFile, rows); err != nil {
			fail(1, "--rows: %v", err)
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(1, "getrusage: %v", err)
	}
	sum := summarize(rows, *stage, ru)
	if !math.IsNaN(windowCPU) {
		sum.WindowCPUMs = &windowCPU
	}
	out, _ := json.Marshal(sum)
	fmt.Println(string(out))
}

// readEvents reads an SSE body to its end and counts its `data:` lines; the stream must end with [DONE].
func readEvents(body io.Reader) (int, error) {
	br := bufio.NewReaderSize(body, 16384)
	n, done := 0, false
	for {
		line, err := br.ReadSlice('\n')
		if bytes.HasPrefix(line, []byte("data:")) {
			n++
			done = bytes.Equal(bytes.TrimSpace(line[5:]), []byte("[DONE]"))
		}
		if err == io.EOF {
			if !done {
				return n, errors.New("the stream ended without [DONE]")
			}
			return n, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return n, err
		}
	}
}

func readSchedule(path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--schedule: %v", err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	want := "request_id,scheduled_ms,case_id,class,stage,shard"
	if len(records) == 0 || strings.Join(records[0], ",") != want {
		return nil, fmt.Errorf("%s: line 1: the header must be %s", path, want)
	}
	rows := make([]row, len(records)-1)
	for i, rec := range records[1:] {
		t, err := strconv.ParseFloat(rec[1], 64)
		if err != nil || !(t >= 0) || math.IsInf(t, 0) || (i > 0 && t < rows[i-1].scheduledMs) {
			return nil, fmt.Errorf("%s: line %d: scheduled_ms %q: expected a number ≥ 0, in time order", path, i+2, rec[1])
		}
		rows[i] = row{id: rec[0], stage: rec[4], scheduledMs: t, lagMs: math.NaN(), completedMs: math.NaN()}
		rows[i].sentNs.Store(-1)
	}
	return rows, nil
}
