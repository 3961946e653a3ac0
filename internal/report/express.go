package report

import (
	"fmt"
	"io"
	"time"

	"github.com/objbench/objbench/internal/document"
)

// WriteExpress writes what a directory bucket's sessions cost a run: the
// CreateSession requests its clients sent, and on the lab how the bucket
// saw the requests signed. Nothing for other buckets.
func WriteExpress(w io.Writer, x *document.ExpressInfo) {
	if x == nil {
		return
	}
	per := "one per client and session"
	if x.CreateSession != int64(x.Clients) {
		per = fmt.Sprintf("%d more than one per client: refreshes, or cold requests at once on one client", x.CreateSession-int64(x.Clients))
	}
	fmt.Fprintf(w, "\nS3 Express One Zone (%s): %d CreateSession requests from %d clients (%s; the setup client's %d apart)\n",
		x.Bucket, x.CreateSession, x.Clients, per, x.SetupCreateSession)
	if l := x.Lab; l != nil {
		fmt.Fprintf(w, "  lab: %d sessions of %s created; %d requests signed with a session, %d with the account's keys, %d refused (%d expired)\n",
			l.SessionsCreated, time.Duration(l.SessionLifetimeS*float64(time.Second)), l.SessionSigned, l.AccountSigned, l.Refused, l.Expired)
	}
}
