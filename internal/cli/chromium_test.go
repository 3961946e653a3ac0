package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds the browser: OBJBENCH_CHROMIUM, else chromium on PATH.
// scripts/test installs Debian's chromium and sets the variable, so there
// a missing browser fails the test instead of skipping it.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("OBJBENCH_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("OBJBENCH_CHROMIUM: %v", err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: scripts/test installs it (Debian package chromium)")
	return ""
}

// plotCheck is what the page script reports for each plot.
type plotCheck struct {
	Label string `json:"label"`
	Marks int    `json:"marks"`
	Drawn int    `json:"drawn"`
}

// TestReportInChromium renders a report of every kind of run in headless
// Chromium: no console error, no request leaving the file, and every plot
// with marks that have a size on screen. The screenshot is kept in
// OBJBENCH_ARTIFACTS (scripts/test: .cache/artifacts).
func TestReportInChromium(t *testing.T) {
	browser := chromium(t)
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	ctx := context.Background()
	var ids []string
	lastID := func() string {
		_, out, _ := runCLI(t, ctx, "runs", "--db", db, "--json", "--limit", "1")
		var l struct {
			Runs []struct {
				RunID string `json:"run_id"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Runs) != 1 {
			t.Fatalf("runs: %v %s", err, out)
		}
		return l.Runs[0].RunID
	}
	for _, args := range [][]string{
		{"run", "lab", "--rtt", "2ms", "--gets", "50", "--op-count", "3", "--sizes", "16KiB,256KiB,1MiB", "--size-count", "3",
			"--concurrency", "1,2,4", "--concurrency-size", "256KiB", "--label", "side=near"},
		{"run", "lab", "--lab-api", "gcs", "--rtt", "10ms", "--workload", "latency,throughput", "--gets", "30", "--op-count", "2",
			"--sizes", "16KiB,256KiB,1MiB", "--size-count", "3", "--label", "side=far"},
		{"strategies", "lab", "--lab-api", "s3", "--rtt", "2ms", "--size", "0", "--objects", "4"},
	} {
		code, _, errOut := runCLI(t, ctx, append(args, "-q", "--json", "--db", db)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		ids = append(ids, lastID())
	}
	if _, err := exec.LookPath("node"); err == nil {
		code, _, errOut := runCLI(t, ctx, "startup", "--runtime", "node", "--runs", "8", "--modules", "20", "--props", "5",
			"--cpu-time", "20ms", "--env-label", "here", "-q", "--json", "--db", db)
		if code != 0 {
			t.Fatalf("startup: exit %d: %s", code, errOut)
		}
		ids = append(ids, lastID())
	}
	page := filepath.Join(dir, "report.html")
	if code, _, errOut := runCLI(t, ctx, append([]string{"report", "-o", page, "--db", db}, ids...)...); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(filepath.Join(dir, "chromium")),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1200, 900))
	actx, cancel := chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	bctx, cancel = context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == "error" || e.Type == "warning" || e.Type == "assert" {
				problems = append(problems, fmt.Sprintf("console %s: %d args", e.Type, len(e.Args)))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == "error" || e.Entry.Level == "warning" {
				problems = append(problems, fmt.Sprintf("browser log %s (%s): %s", e.Entry.Level, e.Entry.Source, e.Entry.Text))
			}
		case *network.EventRequestWillBeSent:
			if !strings.HasPrefix(e.Request.URL, "file://") {
				problems = append(problems, "request: "+e.Request.URL)
			}
		case *network.EventLoadingFailed:
			problems = append(problems, "loading failed: "+e.ErrorText)
		}
	})
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("chromium: %s: %v", what, err)
		}
	}
	_, err = chromedp.Call(bctx, network.Enable, network.EnableParams{})
	step("network", err)
	_, err = chromedp.Call(bctx, runtime.Enable, cdp.Empty{})
	step("runtime", err)
	_, err = chromedp.Call(bctx, cdplog.Enable, cdp.Empty{})
	step("log", err)
	step("open the page", chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")))
	checks, err := chromedp.Run(bctx, chromedp.Evaluate[[]plotCheck](`[...document.querySelectorAll("svg.plot")].map(svg => {
		const marks = [...svg.querySelectorAll(".mark")];
		return {label: svg.getAttribute("aria-label"), marks: marks.length,
			drawn: marks.filter(m => { const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length};
	})`))
	step("check the plots", err)
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(90))
	step("screenshot", err)
	if art := os.Getenv("OBJBENCH_ARTIFACTS"); art != "" {
		if err := os.MkdirAll(art, 0o755); err == nil {
			_ = os.WriteFile(filepath.Join(art, "report.jpg"), shot, 0o644)
			_ = os.WriteFile(filepath.Join(art, "report.html"), mustRead(t, page), 0o644)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	want := []string{"Time to first byte, GET", "Single-stream throughput, GET", "Phases of a GET",
		"Object size vs single-stream throughput, get", "Object size vs single-stream throughput, put",
		"Aggregate throughput vs concurrency", "Wall time per strategy"}
	if len(ids) == 4 {
		want = append(want, "Start-up wall time, require", "Start-up wall time, cpu")
	}
	for _, w := range want {
		found := false
		for _, c := range checks {
			if strings.HasPrefix(c.Label, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no plot %q among %d", w, len(checks))
		}
	}
	for _, c := range checks {
		if c.Marks == 0 || c.Drawn != c.Marks {
			t.Errorf("plot %q: %d marks, %d drawn with a size", c.Label, c.Marks, c.Drawn)
		}
	}
	if len(shot) < 10_000 {
		t.Errorf("screenshot of %d bytes", len(shot))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
