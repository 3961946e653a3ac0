package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// signed is a request to srv signed by the SDK's own SigV4 signer with
// creds for service, the session's token in x-amz-s3session-token when
// creds carry one (as the SDK's s3express signer puts it).
func signed(t *testing.T, srv *httptest.Server, method, path string, creds aws.Credentials, service string, at time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	empty := sha256.Sum256(nil)
	hash := hex.EncodeToString(empty[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if creds.SessionToken != "" {
		req.Header.Set(sessionTokenHeader, creds.SessionToken)
	}
	err = v4.NewSigner().SignHTTP(context.Background(), creds, req, hash, service, "us-east-1", at, func(o *v4.SignerOptions) {
		o.DisableSessionToken, o.DisableURIPathEscaping = true, true
	})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestExpressAuth: the directory bucket answers CreateSession signed with
// the account's keys, takes requests signed with the session until it
// expires, and answers S3's error for each other kind of request,
// without passing it to the store.
func TestExpressAuth(t *testing.T) {
	t.Parallel()
	account := aws.Credentials{AccessKeyID: "lab-key", SecretAccessKey: "lab-secret"}
	x := NewExpress("b--lab-az1--x-s3", time.Minute, map[string]string{account.AccessKeyID: account.SecretAccessKey})
	clock := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	x.now = func() time.Time { return clock }
	var reached atomic.Int64
	srv := httptest.NewServer(x.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) })))
	defer srv.Close()
	do := func(req *http.Request) (int, string) {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	code, body := do(signed(t, srv, "GET", "/b--lab-az1--x-s3?session", account, "s3express", clock))
	var out createSessionResult
	if err := xml.Unmarshal([]byte(body), &out); code != 200 || err != nil || out.Credentials.SessionToken == "" {
		t.Fatalf("CreateSession: %d %s (%v)", code, body, err)
	}
	exp, err := time.Parse(time.RFC3339, out.Credentials.Expiration)
	if err != nil || !exp.Equal(clock.Add(time.Minute)) {
		t.Fatalf("expiration %q, want the lifetime from now", out.Credentials.Expiration)
	}
	sess := aws.Credentials{AccessKeyID: out.Credentials.AccessKeyID, SecretAccessKey: out.Credentials.SecretAccessKey, SessionToken: out.Credentials.SessionToken}
	forged := sess
	forged.SecretAccessKey = "not-the-secret"
	unknown := sess
	unknown.SessionToken = "bm90LWEtdG9rZW4="

	tests := []struct {
		name    string
		req     func() *http.Request
		advance time.Duration
		code    int
		errCode string
	}{
		{"a session-signed GET", func() *http.Request {
			return signed(t, srv, "GET", "/b--lab-az1--x-s3/k%20ey", sess, "s3express", clock)
		}, 0, 200, ""},
		{"an account-signed HEAD of the bucket", func() *http.Request { return signed(t, srv, "HEAD", "/b--lab-az1--x-s3", account, "s3express", clock) }, 0, 200, ""},
		{"a session with the wrong secret", func() *http.Request { return signed(t, srv, "GET", "/b--lab-az1--x-s3/k", forged, "s3express", clock) }, 0, 403, "SignatureDoesNotMatch"},
		{"an unknown token", func() *http.Request { return signed(t, srv, "GET", "/b--lab-az1--x-s3/k", unknown, "s3express", clock) }, 0, 400, "InvalidToken"},
		{"signed for service s3", func() *http.Request { return signed(t, srv, "GET", "/b--lab-az1--x-s3/k", sess, "s3", clock) }, 0, 400, "AuthorizationHeaderMalformed"},
		{"anonymous", func() *http.Request {
			r, _ := http.NewRequest("GET", srv.URL+"/b--lab-az1--x-s3/k", nil)
			return r
		}, 0, 403, "AccessDenied"},
		{"an unknown account key", func() *http.Request {
			return signed(t, srv, "GET", "/b--lab-az1--x-s3?session", aws.Credentials{AccessKeyID: "nobody", SecretAccessKey: "x"}, "s3express", clock)
		}, 0, 403, "InvalidAccessKeyId"},
		{"the session once expired", func() *http.Request { return signed(t, srv, "GET", "/b--lab-az1--x-s3/k", sess, "s3express", clock) }, time.Minute, 400, "ExpiredToken"},
	}
	for _, tc := range tests { // in order: the last one moves the clock
		clock = clock.Add(tc.advance)
		before := reached.Load()
		code, body := do(tc.req())
		if code != tc.code || !strings.Contains(body, "<Code>"+tc.errCode+"</Code>") && tc.errCode != "" {
			t.Errorf("%s: %d %s, want %d %s", tc.name, code, body, tc.code, tc.errCode)
		}
		if passed := reached.Load() > before; passed != (tc.code == 200) {
			t.Errorf("%s: reached the store %v", tc.name, passed)
		}
	}
	c := &x.Counts
	if c.CreateSession.Load() != 1 || c.Session.Load() != 1 || c.Account.Load() != 1 || c.Rejected.Load() != 6 || c.Expired.Load() != 1 {
		t.Errorf("counts: sessions %d, session-signed %d, account %d, refused %d, expired %d", c.CreateSession.Load(), c.Session.Load(), c.Account.Load(), c.Rejected.Load(), c.Expired.Load())
	}
}
