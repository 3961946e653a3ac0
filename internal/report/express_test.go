package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// TestWriteExpress: the session line says whether the clients sent one
// CreateSession each, and the lab's line how the bucket saw them signed.
func TestWriteExpress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		x    *document.ExpressInfo
		want []string
	}{
		{"none", nil, nil},
		{"one each", &document.ExpressInfo{Bucket: "b--usw2-az1--x-s3", Clients: 4, CreateSession: 4, SetupCreateSession: 1},
			[]string{"4 CreateSession requests from 4 clients (one per client and session; the setup client's 1 apart)"}},
		{"refreshed, on the lab", &document.ExpressInfo{Bucket: "b--lab-az1--x-s3", Clients: 2, CreateSession: 5,
			Lab: &document.ExpressLab{SessionLifetimeS: 61, SessionsCreated: 6, SessionSigned: 100, Refused: 1, Expired: 1}},
			[]string{"5 CreateSession requests from 2 clients (3 more than one per client", "6 sessions of 1m1s created; 100 requests signed with a session, 0 with the account's keys, 1 refused (1 expired)"}},
	} {
		var b bytes.Buffer
		WriteExpress(&b, tc.x)
		if tc.want == nil && b.Len() > 0 {
			t.Errorf("%s: wrote %q", tc.name, b.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: %q lacks %q", tc.name, b.String(), w)
			}
		}
	}
}
