package explain

import (
	"strings"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		apis    []string
		timeout time.Duration
		prices  string
		want    string // "" for accepted
	}{
		{[]string{"s3", "gcs", "azure"}, 0, "", ""},
		{[]string{"s3"}, time.Minute, "", ""},
		{[]string{"s3", "swift"}, 0, "", `--apis "swift"`},
		{[]string{"s3"}, -time.Second, "", "--timeout -1s must not be negative"},
		{[]string{"s3"}, 0, "/nonexistent/prices.yaml", "prices.yaml"},
	} {
		_, err := Check(c.apis, c.timeout, c.prices)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%q, %s) = %v, want %q", c.apis, c.timeout, err, c.want)
		}
	}
}
