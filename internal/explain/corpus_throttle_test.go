package explain

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/server"
)

// sleptLine is what testdata/corpus/python/boto3_throttled.py prints: the
// delays botocore's debug log gave before each retry, summed.
var sleptLine = regexp.MustCompile(`botocore: (\d+) retries, slept ([0-9.]+) s, gave up (\d+)`)

// TestCorpusThrottled runs a boto3 program that writes 500 objects under
// one prefix as fast as 16 threads can, on a lab that throttles its
// writes, and holds the throttling finding to the program's own SDK: the
// backoff explain reads from the gaps before each retry is within 15% of
// what botocore's log says it slept, the retries are botocore's, and a
// throttled request retried to a success is no error finding. About 10 s.
func TestCorpusThrottled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a program against the lab")
	}
	if raceDetector {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	r := newCorpusRunner(t)
	argv, why := r.argv(corpusProgram{lang: "python", argv: []string{"boto3_throttled.py"}})
	if why != "" {
		t.Skip(why)
	}
	rtt := 20 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	d, err := Run(ctx, Config{Lab: throttledLab(t, rtt), Argv: argv, Timeout: 2 * time.Minute,
		Stdin: strings.NewReader(""), Output: &out, Prices: analysis.DefaultPrices()})
	if err != nil || d.Explain.ExitCode != 0 {
		t.Fatalf("explain %v: %v\n%s", argv, err, out.String())
	}
	m := sleptLine.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the program did not say what botocore slept:\n%s", out.String())
	}
	retries, _ := strconv.Atoi(m[1])
	slept, _ := strconv.ParseFloat(m[2], 64)
	gaveUp, _ := strconv.Atoi(m[3])
	e := &d.Explain
	f := findingByID(e.Findings, "explain-throttled")
	if f.ID == "" {
		t.Fatalf("no throttling finding (%d retries logged):%s", retries, findingsText(e))
	}
	backoff := f.Evidence["backoff_s"]
	t.Logf("botocore: %d retries, slept %.3f s, gave up %d; explain: %v retried, backoff %.3f s (%+.1f%%), gave up %v",
		retries, slept, gaveUp, f.Evidence["retried"], backoff, 100*(backoff-slept)/slept, f.Evidence["gave_up"])
	if retries < 20 {
		t.Fatalf("botocore retried %d times: the lab did not throttle enough to judge", retries)
	}
	if int(f.Evidence["retried"]) != retries || int(f.Evidence["gave_up"]) != gaveUp {
		t.Errorf("explain counts %v retries and %v give-ups, botocore %d and %d", f.Evidence["retried"], f.Evidence["gave_up"], retries, gaveUp)
	}
	if math.Abs(backoff-slept) > 0.15*slept {
		t.Errorf("backoff %.3f s, botocore slept %.3f s: want within 15%%", backoff, slept)
	}
	// The error finding counts only the attempts of the requests given up
	// on: at least one each, at most botocore's attempts (3, 5 in legacy).
	if errs := findingByID(e.Findings, "explain-errors"); (gaveUp == 0) != (errs.ID == "") ||
		errs.Evidence["errors"] < float64(gaveUp) || errs.Evidence["errors"] > float64(5*gaveUp) {
		t.Errorf("%d requests given up on; the error finding %q counts %v: want none for a request retried to a success", gaveUp, errs.Text, errs.Evidence["errors"])
	}
	checkFindings(t, e)
	checkModel(t, e)
}

func findingsText(e *document.Explain) string {
	var b strings.Builder
	for _, f := range e.Findings {
		fmt.Fprintf(&b, "\n  %s: %s", f.ID, f.Text)
	}
	return b.String()
}

// throttledLab is the lab of TestCorpusThrottled: S3 at rtt, 100 writes
// a second per prefix (what 16 threads of boto3 outrun on 2 cores), no
// partition split.
func throttledLab(t *testing.T, rtt time.Duration) lab.Config {
	t.Helper()
	limit, err := server.ParseLimits("s3:put=100/s,partition=off")
	if err != nil {
		t.Fatal(err)
	}
	return lab.Config{APIs: []string{"s3"}, Profile: "cross-region", RTT: &rtt, Limit: limit}
}
