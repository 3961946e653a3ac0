package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/server"
)

// TestLimitFlag: --limit is refused where it is wrong, on each command
// that takes the lab's flags, with exit 2, the flag's name and an example.
func TestLimitFlag(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"lab", "--limit", "s3:get=fast"},
		{"lab", "exec", "--limit", "gcs:partition=off", "--", "true"},
		{"explain", "--limit", "dropbox", "--", "true"},
		{"run", "--limit", "azure:get=5/s", "--db", ":memory:"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != ExitUsage || !strings.Contains(stderr, "objbench: --limit ") || !strings.Contains(stderr, "e.g. s3:get=200/s") {
				t.Errorf("exit %d, stderr %q; want %d, --limit named, an example", code, stderr, ExitUsage)
			}
		})
	}
}

// TestWriteThrottled: at its stop, a limited lab names the partitions
// that pushed back, the hottest first, and says when one did not.
func TestWriteThrottled(t *testing.T) {
	t.Parallel()
	limits, err := server.ParseLimits("s3:get=0.5/s;gcs:read=0.5/s")
	if err != nil {
		t.Fatal(err)
	}
	l, err := lab.Start(context.Background(), lab.Config{APIs: []string{"s3", "gcs"}, Limit: limits})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	get := func(url string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 3 {
		get(l.LocalEndpoint("s3") + "/" + lab.Bucket + "/hot/key")
	}
	get(l.LocalEndpoint("s3") + "/" + lab.Bucket + "/warm/key")
	get(l.LocalEndpoint("s3") + "/" + lab.Bucket + "/warm/key")
	var out bytes.Buffer
	writeThrottled(&out, l)
	want := "objbench lab: s3 read \"objbench/hot/\" throttled 2 of 3 requests\n" +
		"objbench lab: s3 read \"objbench/warm/\" throttled 1 of 2 requests\n" +
		"objbench lab: gcs throttled nothing\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
