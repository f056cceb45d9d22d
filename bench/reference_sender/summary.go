// The per-request CSV and the JSON summary of a reference_sender run.

package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

func writeRows(path string, rows []row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	num := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	fmt.Fprintln(w, "request_id,stage,scheduled_ms,first_sent_ms,send_lag_ms,completed_ms,outcome,http_status,events")
	for i := range rows {
		r := &rows[i]
		sent := math.NaN()
		if ns := r.sentNs.Load(); ns >= 0 {
			sent = float64(ns) / 1e6
		}
		fmt.Fprintf(w, "%s,%s,%s,%s,%s,%s,%s,%d,%d\n", r.id, r.stage, num(r.scheduledMs), num(sent), num(r.lagMs),
			num(r.completedMs), r.outcome, r.status, r.events)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type summary struct {
	N            int      `json:"n"`
	Ok           int      `json:"ok"`
	NotSent      int      `json:"not_sent"`
	Failed       int      `json:"failed"`
	Stage        string   `json:"stage"`
	StageN       int      `json:"stage_n"`
	LagP50Ms     *float64 `json:"send_lag_p50_ms"` // null: no lag in the stage
	LagP99Ms     *float64 `json:"send_lag_p99_ms"`
	LagMaxMs     *float64 `json:"send_lag_max_ms"`
	CompletedRps float64  `json:"completed_rps"`
	CPUUserMs    float64  `json:"cpu_user_ms"`
	CPUSysMs     float64  `json:"cpu_sys_ms"`
	PeakRSSBytes *int64   `json:"peak_rss_bytes"`          // null: no /proc/self/status
	WindowCPUMs  *float64 `json:"window_cpu_ms,omitempty"` // --cpu-window-ms: user + system CPU in the window
	GoVersion    string   `json:"go_version"`
	GoMaxProcs   int      `json:"gomaxprocs"`
}

// summarize counts outcomes, takes nearest-rank percentiles of the stage's send lags (as
// bench/runner_bench.ts does), and completions per second from the first scheduled time to the last completion.
func summarize(rows []row, stage string, ru syscall.Rusage) summary {
	s := summary{N: len(rows), Stage: stage, GoVersion: runtime.Version(), GoMaxProcs: runtime.GOMAXPROCS(0)}
	var lags []float64
	last := math.Inf(-1)
	for i := range rows {
		r := &rows[i]
		switch r.outcome {
		case "ok":
			s.Ok++
			last = math.Max(last, r.completedMs)
		case "not_sent":
			s.NotSent++
		default:
			s.Failed++
		}
		if r.stage == stage && !math.IsNaN(r.lagMs) {
			lags = append(lags, r.lagMs)
		}
	}
	sort.Float64s(lags)
	rank := func(p float64) *float64 {
		if len(lags) == 0 {
			return nil
		}
		k := int(math.Ceil(p*float64(len(lags)))) - 1
		if k < 0 {
			k = 0
		}
		return &lags[k]
	}
	s.StageN = len(lags)
	s.LagP50Ms, s.LagP99Ms, s.LagMaxMs = rank(0.5), rank(0.99), rank(1)
	if s.Ok > 0 {
		s.CompletedRps = float64(s.Ok) / ((last - rows[0].scheduledMs) / 1000)
	}
	ms := func(t syscall.Timeval) float64 { return float64(t.Sec)*1000 + float64(t.Usec)/1000 }
	s.CPUUserMs, s.CPUSysMs = ms(ru.Utime), ms(ru.Stime)
	s.PeakRSSBytes = peakRSS()
	return s
}

// cpuMs is this process's user + system CPU time so far (getrusage), ms.
func cpuMs() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(1, "getrusage: %v", err)
	}
	ms := func(t syscall.Timeval) float64 { return float64(t.Sec)*1000 + float64(t.Usec)/1000 }
	return ms(ru.Utime) + ms(ru.Stime)
}

// peakRSS is this process's VmHWM (/proc/self/status), as the runner's run.json reports its own; nil when unreadable.
// Not getrusage's ru_maxrss: Linux carries the parent's peak across fork and exec, so a child started by a
// large process reports the parent's.
func peakRSS() *int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			field := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line[len("VmHWM:"):]), "kB"))
			if kb, err := strconv.ParseInt(field, 10, 64); err == nil {
				b := kb * 1024
				return &b
			}
		}
	}
	return nil
}
