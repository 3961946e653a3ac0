package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainRedactsEverywhere is issue 28's second defect: a program
// given credentials on its command line, in every common form, is
// explained, and no output that carries the command line holds one:
// the terminal (explain's text and stderr), the JSON document, the
// results database (its files read as bytes), show, export (json, csv,
// samples), runs and the HTML report. (explain exports no OTLP trace: its
// command line never reaches one.)
func TestExplainRedactsEverywhere(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	// sh runs the script, which makes one request to the lab; the words
	// after it are sh's $0, $1, … : the command line under test.
	argv := []string{"sh", "-c", `curl -sS -o /dev/null -u alice:S3CR3T-script "$AWS_ENDPOINT_URL/objbench/none"`, "prog",
		"http://alice:S3CR3T-url@127.0.0.1/b", "-u", "bob:S3CR3T-u", "-ucarol:S3CR3T-uattached", "--user", "dan:S3CR3T-user",
		"--user=erin:S3CR3T-usereq", "-H", "Authorization: Bearer S3CR3T-auth", "-H", "x-amz-security-token: S3CR3T-sts",
		"--access-key", "S3CR3T-ak", "--secret-key=S3CR3T-sk", "--session-token", "S3CR3T-st", "--db-password", "S3CR3T-pw",
		"--db-password=S3CR3T-pweq", "--client-secret", "S3CR3T-cs", "--id-token=S3CR3T-it", "AKIAIOSFODNN7EXAMPLE",
		"ASIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY=S3CR3T-env"}
	leaks := func(where, s string) {
		t.Helper()
		for _, secret := range []string{"S3CR3T", "IOSFODNN7"} {
			if i := strings.Index(s, secret); i >= 0 {
				t.Errorf("%s holds a secret: …%s…", where, s[max(0, i-40):min(len(s), i+40)])
			}
		}
	}
	html := filepath.Join(dir, "explain.html")
	code, out, errOut := runCLI(t, ctx, append([]string{"--db", db, "explain", "local", "--apis", "s3", "--report", html, "--"}, argv...)...)
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "alice:REDACTED") || !strings.Contains(out, "Authorization: REDACTED") {
		t.Errorf("the header does not show the command line, redacted: %s", out)
	}
	leaks("explain's text", out)
	leaks("explain's stderr", errOut)
	code, out, errOut = runCLI(t, ctx, append([]string{"--db", db, "explain", "local", "--apis", "s3", "--json", "--"}, argv...)...)
	if code != 0 {
		t.Fatalf("explain --json: exit %d: %s", code, errOut)
	}
	leaks("explain --json", out)
	id := explainJSON(t, out).RunID
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	leaks("explain --report", string(page))
	for _, args := range [][]string{{"show", id}, {"show", id, "--detail"}, {"export", id}, {"export", id, "--format", "csv"},
		{"export", id, "--format", "samples"}, {"runs"}, {"runs", "--json"}, {"report", id, "-o", filepath.Join(dir, "report.html")}} {
		_, out, errOut := runCLI(t, ctx, append([]string{"--db", db}, args...)...)
		leaks(strings.Join(args[:1], " "), out+errOut)
	}
	page, err = os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	leaks("report", string(page))
	files, _ := filepath.Glob(db + "*") // the database and its WAL
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		leaks(filepath.Base(f), string(b))
	}
}
