package target

import (
	"sync"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/usage"
)

// checkDirectoryBucket refuses a client that cannot reach a directory
// bucket (S3 Express One Zone): minio-go signs every request with the
// account's keys for service s3 and sends no CreateSession, which a
// directory bucket's zonal endpoint does not take.
func checkDirectoryBucket(t storage.Target, client string) error {
	if t.Scheme == "s3" && storage.IsDirectoryBucket(t.Bucket) && client == storage.ClientMinio {
		return usage.Fieldf("{Client} minio cannot reach directory bucket %q (S3 Express One Zone): it sends no CreateSession and does not sign for s3express; use the default client, sdk", t.Bucket)
	}
	return nil
}

// sessionTally keeps the clients a factory made that count the sessions
// they create, so that a run can say how many CreateSession requests its
// clients sent; the setup client's are kept apart.
type sessionTally struct {
	mu      sync.Mutex
	clients []storage.SessionCounter
	setupN  int // clients[:setupN] are the setup client's
}

func (s *sessionTally) add(b storage.Backend) {
	c, ok := b.(storage.SessionCounter)
	if !ok {
		return
	}
	s.mu.Lock()
	s.clients = append(s.clients, c)
	s.mu.Unlock()
}

// setup marks the clients made so far as the setup client's.
func (s *sessionTally) setup() {
	s.mu.Lock()
	s.setupN = len(s.clients)
	s.mu.Unlock()
}

// Express is the directory bucket block of a run's document: the measured
// clients and the CreateSession requests they sent, and on the lab what
// its bucket saw (the setup client's requests included); nil on a general
// purpose bucket.
func (e *Env) Express() *document.ExpressInfo {
	if e.Target.Scheme != "s3" || !storage.IsDirectoryBucket(e.Target.Bucket) {
		return nil
	}
	info := &document.ExpressInfo{Bucket: e.Target.Bucket}
	e.sessions.mu.Lock()
	for _, c := range e.sessions.clients[e.sessions.setupN:] {
		if n := c.CreateSessions(); n > 0 {
			info.Clients++
			info.CreateSession += n
		}
	}
	for _, c := range e.sessions.clients[:e.sessions.setupN] {
		info.SetupCreateSession += c.CreateSessions()
	}
	e.sessions.mu.Unlock()
	if e.Lab != nil {
		if x := e.Lab.Express(); x != nil {
			info.Lab = &document.ExpressLab{
				SessionLifetimeS: x.Lifetime.Seconds(),
				SessionsCreated:  x.Counts.CreateSession.Load(),
				SessionSigned:    x.Counts.Session.Load(),
				AccountSigned:    x.Counts.Account.Load(),
				Refused:          x.Counts.Rejected.Load(),
				Expired:          x.Counts.Expired.Load(),
			}
		}
	}
	return info
}
