package server

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ExpressBucket is the name the lab gives its S3 bucket when it serves it
// as an S3 Express One Zone directory bucket: a base name, a zone ID and
// the --x-s3 suffix, the form SDKs recognise (bucket-base-name--zone-id--x-s3).
// "lab-az1" is no AWS zone: nothing mistakes it for a real bucket.
const ExpressBucket = Bucket + "--lab-az1--x-s3"

// IsDirectoryBucket reports whether name is an S3 directory bucket's (S3
// Express One Zone): SDKs switch to session authentication on the suffix.
func IsDirectoryBucket(name string) bool { return strings.HasSuffix(name, "--x-s3") }

// Express defaults, as S3 Express One Zone documents them: a session's
// credentials expire after 5 minutes (CreateSession's API reference), and
// requests see "single-digit millisecond" first-byte latency (the S3 user
// guide, "Optimizing S3 Express One Zone performance"); the lab's service
// time sits in that range. A directory bucket takes up to 2,000,000 GET
// and 200,000 PUT requests per second (the same guide's "How directory
// buckets work"), per bucket rather than per prefix.
const (
	ExpressSessionLifetime = 5 * time.Minute
	ExpressServiceTime     = 3 * time.Millisecond
	ExpressGetsPerSecond   = 2_000_000
	ExpressPutsPerSecond   = 200_000
)

// sessionTokenHeader carries a session's token on every request signed
// with its credentials.
const sessionTokenHeader = "X-Amz-S3session-Token"

// Express serves the lab's bucket as a directory bucket: CreateSession
// (GET /bucket?session, signed with the account's keys) hands out a
// session's credentials, and every other request must be signed (SigV4,
// service s3express) either with a session's, its token in
// x-amz-s3session-token, or with the account's (HeadBucket and CopyObject
// always are; so is every request of a client with session auth turned
// off). A request signed with an expired, unknown or mismatched session
// gets S3's error for it and never reaches the store.
type Express struct {
	// Bucket is the directory bucket's name (ExpressBucket by default).
	Bucket string
	// Lifetime of a session (ExpressSessionLifetime by default).
	Lifetime time.Duration
	// Keys are the account's access keys and their secrets.
	Keys map[string]string
	// Counts are what the bucket saw.
	Counts ExpressCounts
	// now is the clock (tests).
	now func() time.Time

	mu       sync.Mutex
	sessions map[string]*session // by token
}

// ExpressCounts are a directory bucket's requests by how they were
// authorised.
type ExpressCounts struct {
	// CreateSession counts sessions created (CreateSession answered 200).
	CreateSession atomic.Int64
	// Session counts requests signed with a valid session's credentials.
	Session atomic.Int64
	// Account counts other requests signed with the account's keys
	// (HeadBucket, CopyObject, a client with session auth off).
	Account atomic.Int64
	// Rejected counts requests refused for their authorisation.
	Rejected atomic.Int64
	// Expired counts, of those, the ones signed with an expired session.
	Expired atomic.Int64
}

type session struct {
	accessKey, secret string
	expires           time.Time
}

// NewExpress is a directory bucket named bucket ("" for ExpressBucket)
// whose sessions last lifetime (0 for ExpressSessionLifetime), for an
// account with keys (access key to secret).
func NewExpress(bucket string, lifetime time.Duration, keys map[string]string) *Express {
	if bucket == "" {
		bucket = ExpressBucket
	}
	if lifetime <= 0 {
		lifetime = ExpressSessionLifetime
	}
	return &Express{Bucket: bucket, Lifetime: lifetime, Keys: keys, now: time.Now, sessions: map[string]*session{}}
}

// Handler is the lab's S3 handler (S3Handler) over a store holding the
// directory bucket, behind the bucket's authorisation.
func (x *Express) Handler(string) (http.Handler, error) {
	return newS3Handler(x.Bucket, x.Wrap)
}

// Wrap puts the directory bucket's authorisation in front of next.
// Requests for anything but the bucket pass through.
func (x *Express) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bucket, key := splitPath(r.URL.Path)
		if bucket != x.Bucket {
			next.ServeHTTP(w, r)
			return
		}
		sig, err := parseSigV4(r)
		if err != nil {
			x.reject(w, http.StatusForbidden, "AccessDenied", "Access Denied: a directory bucket takes requests signed with AWS Signature Version 4 only")
			return
		}
		if sig.Service != "s3express" {
			x.reject(w, http.StatusBadRequest, "AuthorizationHeaderMalformed", "The authorization header's credential scope must name the service s3express, not "+sig.Service)
			return
		}
		if r.Method == http.MethodGet && key == "" && r.URL.Query().Has("session") {
			x.createSession(w, r, sig)
			return
		}
		if token := r.Header.Get(sessionTokenHeader); token != "" {
			if !x.checkSession(w, r, sig, token) {
				return
			}
			x.Counts.Session.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		if !x.checkAccount(w, r, sig) {
			return
		}
		x.Counts.Account.Add(1)
		next.ServeHTTP(w, r)
	})
}

// splitPath is a path-style request's bucket and key.
func splitPath(p string) (bucket, key string) {
	bucket, key, _ = strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return bucket, key
}

// checkAccount verifies a request signed with the account's keys.
func (x *Express) checkAccount(w http.ResponseWriter, r *http.Request, sig sigV4) bool {
	secret, ok := x.Keys[sig.AccessKey]
	if !ok {
		x.reject(w, http.StatusForbidden, "InvalidAccessKeyId", "The AWS access key ID you provided does not exist in our records.")
		return false
	}
	if !sig.verify(r, secret) {
		x.reject(w, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return false
	}
	return true
}

// checkSession verifies a request signed with a session's credentials.
func (x *Express) checkSession(w http.ResponseWriter, r *http.Request, sig sigV4, token string) bool {
	x.mu.Lock()
	s := x.sessions[token]
	x.mu.Unlock()
	switch {
	case s == nil:
		x.reject(w, http.StatusBadRequest, "InvalidToken", "The provided token is malformed or otherwise invalid.")
		return false
	case !x.now().Before(s.expires):
		x.Counts.Expired.Add(1)
		x.reject(w, http.StatusBadRequest, "ExpiredToken", "The provided token has expired.")
		return false
	case sig.AccessKey != s.accessKey:
		x.reject(w, http.StatusForbidden, "InvalidAccessKeyId", "The access key ID does not belong to the session whose token the request carries.")
		return false
	case !sig.verify(r, s.secret):
		x.reject(w, http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return false
	}
	return true
}

// createSessionResult is CreateSession's answer, as S3 gives it.
type createSessionResult struct {
	XMLName     xml.Name `xml:"http://s3.amazonaws.com/doc/2006-03-01/ CreateSessionResult"`
	Credentials struct {
		SessionToken    string
		SecretAccessKey string
		AccessKeyID     string `xml:"AccessKeyId"`
		Expiration      string
	}
}

func (x *Express) createSession(w http.ResponseWriter, r *http.Request, sig sigV4) {
	if !x.checkAccount(w, r, sig) {
		return
	}
	now := x.now()
	s := &session{accessKey: "S3EXPRESSLAB" + strings.ToUpper(randomHex(8)), secret: randomToken(30), expires: now.Add(x.Lifetime)}
	token := randomToken(48)
	x.mu.Lock()
	for t, old := range x.sessions { // an expired session is answered ExpiredToken for one more lifetime, then forgotten
		if now.Sub(old.expires) > x.Lifetime {
			delete(x.sessions, t)
		}
	}
	x.sessions[token] = s
	x.mu.Unlock()
	var out createSessionResult
	out.Credentials.SessionToken, out.Credentials.SecretAccessKey, out.Credentials.AccessKeyID = token, s.secret, s.accessKey
	out.Credentials.Expiration = s.expires.UTC().Format(time.RFC3339)
	body, err := xml.Marshal(out)
	if err != nil { // a fixed struct of strings: cannot fail
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	x.Counts.CreateSession.Add(1)
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(body)
}

// s3Error is S3's error body.
type s3Error struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string
	Message   string
	RequestID string `xml:"RequestId"`
}

func (x *Express) reject(w http.ResponseWriter, status int, code, msg string) {
	x.Counts.Rejected.Add(1)
	body, _ := xml.Marshal(s3Error{Code: code, Message: msg, RequestID: strings.ToUpper(randomHex(8))})
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(body)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand's contract)
	return hex.EncodeToString(b)
}

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}
