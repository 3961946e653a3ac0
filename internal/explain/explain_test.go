package explain

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/timeline"
)

func TestOperation(t *testing.T) {
	t.Parallel()
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		api, method, path, query string
		header                   http.Header
		status                   int
		want                     string
		object                   bool
		price                    string
	}{
		{"s3", "GET", "/", "", nil, 200, "ListBuckets", false, "list"},
		{"s3", "GET", "/b", "list-type=2&prefix=x", nil, 200, "ListObjectsV2", false, "list"},
		{"s3", "GET", "/b/", "prefix=x", nil, 200, "ListObjects", false, "list"},
		{"s3", "PUT", "/b", "", nil, 200, "CreateBucket", false, "put"},
		{"s3", "HEAD", "/b", "", nil, 200, "HeadBucket", false, "head"},
		{"s3", "POST", "/b", "delete=", nil, 200, "DeleteObjects", false, "put"},
		{"s3", "GET", "/b/k", "", nil, 200, "GetObject", true, "get"},
		{"s3", "GET", "/b--usw2-az1--x-s3", "session=", nil, 200, "CreateSession", false, "get"},
		{"s3", "HEAD", "/b/k", "", nil, 200, "HeadObject", false, "head"},
		{"s3", "PUT", "/b/k", "", nil, 200, "PutObject", true, "put"},
		{"s3", "PUT", "/b/k", "", h("X-Amz-Copy-Source", "/b/j"), 200, "CopyObject", true, "put"},
		{"s3", "POST", "/b/k", "uploads=", nil, 200, "CreateMultipartUpload", false, "put"},
		{"s3", "PUT", "/b/k", "partNumber=1&uploadId=u", nil, 200, "UploadPart", false, "put"},
		{"s3", "POST", "/b/k", "uploadId=u", nil, 200, "CompleteMultipartUpload", true, "put"},
		{"s3", "DELETE", "/b/k", "uploadId=u", nil, 204, "AbortMultipartUpload", false, "delete"},
		{"s3", "DELETE", "/b/k/with/slashes", "", nil, 204, "DeleteObject", false, "delete"},
		{"gcs", "POST", "/upload/storage/v1/b/b/o", "uploadType=resumable&name=k", nil, 200, "ResumableInitiate", false, "put"},
		{"gcs", "PUT", "/upload/storage/v1/b/b/o", "uploadType=resumable&upload_id=x", nil, 308, "ResumableChunk", false, "put"},
		{"gcs", "PUT", "/upload/storage/v1/b/b/o", "uploadType=resumable&upload_id=x", nil, 200, "ResumableChunk (final)", true, "put"},
		{"gcs", "POST", "/upload/storage/v1/b/b/o", "uploadType=multipart", nil, 200, "InsertObject (multipart)", true, "put"},
		{"gcs", "POST", "/upload/storage/v1/b/b/o", "uploadType=media&name=k", nil, 200, "InsertObject (media)", true, "put"},
		{"gcs", "GET", "/download/storage/v1/b/b/o/k", "alt=media", nil, 200, "GetObject (media)", true, "get"},
		{"gcs", "GET", "/storage/v1/b/b/o/k", "alt=media", nil, 200, "GetObject (media)", true, "get"},
		{"gcs", "GET", "/storage/v1/b/b/o/k", "", nil, 200, "GetObjectMetadata", false, "get"},
		{"gcs", "GET", "/storage/v1/b/b/o", "prefix=p", nil, 200, "ListObjects", false, "list"},
		{"gcs", "DELETE", "/storage/v1/b/b/o/k", "", nil, 204, "DeleteObject", false, "delete"},
		{"gcs", "POST", "/storage/v1/b", "project=p", nil, 200, "CreateBucket", false, "put"},
		{"gcs", "GET", "/storage/v1/b/b", "", nil, 200, "GetBucket", false, "get"},
		{"gcs", "GET", "/b/k", "", nil, 200, "XML GetObject", true, "get"},
		{"gcs", "PUT", "/b/k", "", nil, 200, "XML PutObject", true, "put"},
		{"azure", "PUT", "/acct/c/blob", "", nil, 201, "PutBlob", true, "put"},
		{"azure", "PUT", "/acct/c/blob", "comp=block&blockid=AA", nil, 201, "PutBlock", false, "put"},
		{"azure", "PUT", "/acct/c/blob", "comp=blocklist", nil, 201, "PutBlockList", true, "put"},
		{"azure", "GET", "/acct/c/blob", "", nil, 200, "GetBlob", true, "get"},
		{"azure", "HEAD", "/acct/c/blob", "", nil, 200, "GetBlobProperties", false, "head"},
		{"azure", "GET", "/acct/c", "restype=container&comp=list", nil, 200, "ListBlobs", false, "list"},
		{"azure", "PUT", "/acct/c", "restype=container", nil, 201, "CreateContainer", false, "put"},
		{"azure", "DELETE", "/acct/c/blob", "", nil, 202, "DeleteBlob", false, "delete"},
	} {
		got := Operation(tc.api, tc.method, tc.path, tc.query, tc.header, tc.status)
		if got.Name != tc.want || got.Object != tc.object || got.Price != tc.price {
			t.Errorf("%s %s %s?%s = %+v, want %s object=%v price=%s", tc.api, tc.method, tc.path, tc.query, got, tc.want, tc.object, tc.price)
		}
		if p := priceOf(got.Name); p != tc.price {
			t.Errorf("priceOf(%s) = %s, want %s", got.Name, p, tc.price)
		}
	}
}

// fakeConn is a connection of a synthetic record: opened at a (in RTTs
// after t0), with TLS 1.3, carrying one GET per start time given.
func fakeConn(t0 time.Time, rtt time.Duration, id int, at float64, gets ...float64) timeline.Conn {
	ts := func(r float64) time.Time { return t0.Add(time.Duration(r * float64(rtt))) }
	c := timeline.Conn{ID: id, API: "s3", Accepted: ts(at + 1.5), Hello: ts(at + 1.5), Handshake: ts(at + 2.5),
		TLSVersion: "1.3", ALPN: "http/1.1", ClosedBy: "client"}
	for i, g := range gets {
		// A key each: the same key again would be a re-read.
		c.Requests = append(c.Requests, &timeline.Request{Method: "GET", Path: fmt.Sprintf("/objbench/k-%d-%d", id, i), Proto: "HTTP/1.1",
			Header: http.Header{"X-Amz-Checksum-Mode": {"ENABLED"}}, Arrived: ts(g), FirstByte: ts(g + 0.01), Done: ts(g + 0.01),
			BytesOut: 1024, Status: 200})
	}
	c.Closed = ts(gets[len(gets)-1] + 1)
	return c
}

// gcs makes connections GCS ones, their GETs media downloads.
func gcs(cs ...timeline.Conn) []timeline.Conn {
	for i := range cs {
		cs[i].API = "gcs"
		for _, q := range cs[i].Requests {
			q.Path, q.Query = "/download/storage/v1/b/objbench/o/"+strings.TrimPrefix(q.Path, "/objbench/"), "alt=media"
		}
	}
	return cs
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestAnalyzeStructure(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	rtt := 100 * time.Millisecond
	for _, tc := range []struct {
		name                        string
		conns                       []timeline.Conn
		wantConns, wantReq, wantObj int
		wantRTTsPerObject           float64
		// wantInFlight is the client's; wantServer the server's.
		wantInFlight, wantServer int
		// wantFindings are the findings beyond the info ones (checksum
		// headers, time away from storage), exactly.
		wantFindings string
	}{
		// One connection, four GETs back to back: TCP 1 + TLS 1 + 4 x 1.
		{"reused", []timeline.Conn{fakeConn(t0, rtt, 1, 0, 2.5, 3.5, 4.5, 5.5)}, 1, 4, 4, (1 + 1 + 4*1.01) / 4.0, 1, 1, "explain-sequential"},
		// A client per object: every GET on a new connection, one after
		// the other.
		{"client-per-object", []timeline.Conn{fakeConn(t0, rtt, 1, 0, 2.5), fakeConn(t0, rtt, 2, 3.5, 6), fakeConn(t0, rtt, 3, 7, 9.5), fakeConn(t0, rtt, 4, 10.5, 13)},
			4, 4, 4, 1 + 1 + 1.01, 1, 1, "explain-client-per-object explain-sequential"},
		// Connections used once and dropped beside a kept one, two
		// requests in flight at the client (one at the server).
		{"dropped beside a kept one", []timeline.Conn{fakeConn(t0, rtt, 1, 0, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5), fakeConn(t0, rtt, 2, 0, 2.5),
			fakeConn(t0, rtt, 3, 1, 3.5), fakeConn(t0, rtt, 4, 2, 4.5), fakeConn(t0, rtt, 5, 3, 5.5), fakeConn(t0, rtt, 6, 4, 6.5),
			fakeConn(t0, rtt, 7, 5, 7.5), fakeConn(t0, rtt, 8, 6, 8.5)}, 8, 13, 13, (8 + 8 + 13*1.01) / 13, 2, 2, "explain-client-per-object"},
		// Three parallel connections, one request each: nothing to say.
		{"parallel", []timeline.Conn{fakeConn(t0, rtt, 1, 0, 2.5), fakeConn(t0, rtt, 2, 0, 2.5), fakeConn(t0, rtt, 3, 0, 2.5)},
			3, 3, 3, 1 + 1 + 1.01, 3, 3, ""},
		// Four workers a round trip apart on four kept connections: the
		// server rarely sees two at once, the client has four in flight.
		{"four workers", []timeline.Conn{fakeConn(t0, rtt, 1, 0, 2.5, 3.5, 4.5), fakeConn(t0, rtt, 2, 0.25, 2.75, 3.75, 4.75),
			fakeConn(t0, rtt, 3, 0.5, 3, 4, 5), fakeConn(t0, rtt, 4, 0.75, 3.25, 4.25, 5.25)}, 4, 12, 12, (4 + 4 + 12*1.01) / 12, 4, 1, ""},
		// The same to GCS over HTTP/1.1: HTTP/2 would carry them on one.
		{"parallel gcs", gcs(fakeConn(t0, rtt, 1, 0, 2.5, 3.5), fakeConn(t0, rtt, 2, 0, 2.5, 3.5), fakeConn(t0, rtt, 3, 0, 2.5, 3.5)),
			3, 6, 6, (3 + 3 + 6*1.01) / 6, 3, 3, "explain-http2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			end := tc.conns[len(tc.conns)-1].Closed.Add(time.Second)
			in := Input{Program: []string{"prog"}, Conns: tc.conns, Start: t0, End: end, RTT: rtt, HTTP2Offered: true}
			e := Analyze(in)
			if e.Connections != tc.wantConns || e.Requests != tc.wantReq || e.Objects != tc.wantObj || e.TLSHandshakes != tc.wantConns {
				t.Fatalf("conns %d requests %d objects %d handshakes %d, want %d %d %d %d", e.Connections, e.Requests, e.Objects,
					e.TLSHandshakes, tc.wantConns, tc.wantReq, tc.wantObj, tc.wantConns)
			}
			if !near(e.RoundTripsPerObject, tc.wantRTTsPerObject, 0.02) {
				t.Errorf("round trips per object %.3f, want %.3f (%v)", e.RoundTripsPerObject, tc.wantRTTsPerObject, e.RoundTripsByPhase)
			}
			if e.MaxInFlight != tc.wantInFlight || e.ServerMaxInFlight != tc.wantServer {
				t.Errorf("in flight %d at the client, %d at the server; want %d and %d", e.MaxInFlight, e.ServerMaxInFlight, tc.wantInFlight, tc.wantServer)
			}
			if e.Operations["GetObject"]+e.Operations["GetObject (media)"] != tc.wantReq || e.ExtraHeaders["x-amz-checksum-mode"] != tc.wantReq {
				t.Errorf("operations %v, extra headers %v", e.Operations, e.ExtraHeaders)
			}
			if e.StorageS <= 0 || e.StorageS > e.WallS || !near(e.StorageS+e.NotStorageS, e.WallS, 1e-9) {
				t.Errorf("storage %.3f s + not %.3f s, wall %.3f s", e.StorageS, e.NotStorageS, e.WallS)
			}
			if got := findingIDs(Findings(&e, in)); got != tc.wantFindings {
				t.Errorf("findings %q, want %q", got, tc.wantFindings)
			}
		})
	}
}

// findingIDs are the ids of fs but the info ones about headers and time
// away from storage, sorted, space-separated.
func findingIDs(fs []document.Finding) string {
	var ids []string
	for _, f := range fs {
		if f.ID != "explain-checksum-headers" && f.ID != "explain-not-storage" {
			ids = append(ids, f.ID)
		}
	}
	sort.Strings(ids)
	return strings.Join(ids, " ")
}

// allFindingIDs is every finding id, sorted, space-separated.
func allFindingIDs(fs []document.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	sort.Strings(ids)
	return strings.Join(ids, " ")
}

func TestAnalyzeUploads(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	rtt := 50 * time.Millisecond
	ts := func(r float64) time.Time { return t0.Add(time.Duration(r * float64(rtt))) }
	// A GCS resumable upload: initiation then one chunk; then an S3 PUT
	// that waited for 100 Continue, with a checksum header.
	c := timeline.Conn{ID: 1, API: "gcs", Accepted: ts(1.5), ClosedBy: "client", Closed: ts(10)}
	c.Requests = []*timeline.Request{
		{Method: "POST", Path: "/upload/storage/v1/b/objbench/o", Query: "uploadType=resumable&name=k", Arrived: ts(1.5), FirstByte: ts(1.5), Done: ts(1.5), Status: 200},
		{Method: "PUT", Path: "/upload/storage/v1/b/objbench/o", Query: "uploadType=resumable&upload_id=u", Arrived: ts(2.5), BodyDone: ts(2.5), FirstByte: ts(2.5), Done: ts(2.5), BytesIn: 7000, Status: 200},
	}
	s3 := timeline.Conn{ID: 2, API: "s3", Accepted: ts(11.5), ClosedBy: "client", Closed: ts(20)}
	s3.Requests = []*timeline.Request{{Method: "PUT", Path: "/objbench/k", Header: http.Header{"X-Amz-Checksum-Crc32": {"AAAA"}, "Expect": {"100-continue"}},
		Expect: true, Arrived: ts(11.5), BodyDone: ts(12.5), FirstByte: ts(12.5), Done: ts(12.5), BytesIn: 7000, Status: 200}}
	in := Input{Conns: []timeline.Conn{c, s3}, Start: t0, End: ts(21), RTT: rtt}
	e := Analyze(in)
	if e.Objects != 2 || e.Requests != 3 || e.Operations["ResumableInitiate"] != 1 || e.Operations["ResumableChunk (final)"] != 1 || e.Operations["PutObject"] != 1 {
		t.Fatalf("objects %d requests %d operations %v", e.Objects, e.Requests, e.Operations)
	}
	if e.ExpectContinue != 1 || e.ExtraHeaders["x-amz-checksum-crc32"] != 1 {
		t.Errorf("expect %d, extra headers %v", e.ExpectContinue, e.ExtraHeaders)
	}
	// connect 2 + 3 exchanges + 1 wait100, over 2 objects.
	if !near(e.RoundTripsPerObject, 3, 0.01) || !near(e.RoundTripsByPhase["wait100"], 0.5, 0.01) {
		t.Errorf("round trips per object %.3f (%v), want 3 with wait100 0.5", e.RoundTripsPerObject, e.RoundTripsByPhase)
	}
	fs := Findings(&e, in)
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	for _, want := range []string{"explain-multi-request-upload", "explain-expect-continue", "explain-checksum-headers"} {
		if !strings.Contains(strings.Join(ids, " "), want) {
			t.Errorf("findings %v lack %s", ids, want)
		}
	}
	d := &document.ExplainDocument{Envelope: document.NewEnvelope("explain", "r", t0), Explain: e}
	d.Lab = &document.LabInfo{API: "s3"}
	Price(d, analysis.DefaultPrices())
	if d.Explain.Cost == nil || d.Explain.Cost.Requests != 3 || d.Explain.CostUSDPer1000Objects <= 0 {
		t.Errorf("cost %+v per 1000 %v", d.Explain.Cost, d.Explain.CostUSDPer1000Objects)
	}
}

func TestUnionPeak(t *testing.T) {
	t.Parallel()
	iv := []interval{{0, 1}, {0.5, 2}, {3, 4}, {3.5, 3.6}, {-1, 0.2}}
	if got := union(iv, 0, 10); !near(got, 3, 1e-9) {
		t.Errorf("union %v, want 3", got)
	}
	if got := union(iv, 0, 3.5); !near(got, 2.5, 1e-9) {
		t.Errorf("clipped union %v, want 2.5", got)
	}
	if got := peak(iv); got != 2 {
		t.Errorf("peak %d, want 2", got)
	}
	if got := peak([]interval{{0, 1}, {1, 2}}); got != 1 {
		t.Errorf("touching intervals peak %d, want 1", got)
	}
}

func TestPrefixWriter(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := NewPrefixWriter(&b, "prog| ")
	for _, s := range []string{"one\ntw", "o\n", "three"} {
		if _, err := p.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "prog| one\nprog| two\nprog| three\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestCloudHint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ out, want string }{
		{`botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://objbench.s3.amazonaws.com/k"`, "AWS_ENDPOINT_URL"},
		{"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='storage.googleapis.com', port=443)", "STORAGE_EMULATOR_HOST"},
		{"failed to reach myaccount.blob.core.windows.net", "AZURE_STORAGE_CONNECTION_STRING"},
		{"all good", ""},
	} {
		got := cloudHint(tc.out)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("cloudHint(%q) = %q, want mention of %q", tc.out, got, tc.want)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	in := []string{"prog", "--token", "abc", "--password=hunter2", "AccountKey=xyz;Endpoint=e", "https://h/k?sv=1&sig=s3cr3t", "--keys", "3", "plain"}
	got := strings.Join(Redact(in), " ")
	for _, secret := range []string{"abc", "hunter2", "xyz", "s3cr3t"} {
		if strings.Contains(got, secret) {
			t.Errorf("Redact left %q in %q", secret, got)
		}
	}
	if !strings.Contains(got, "--keys 3 plain") || !strings.Contains(got, "Endpoint=e") {
		t.Errorf("Redact removed too much: %q", got)
	}
}

// redactCases are issue 28's forms of a credential on a command line:
// each argv holds the secret "S3CR3T" (or an AWS key id) once or more,
// and keeps the words in keep.
var redactCases = []struct {
	Name string
	Argv []string
	Keep []string
}{
	{"url userinfo", []string{"curl", "http://alice:S3CR3T@127.0.0.1:9000/b/k"}, []string{"alice", "127.0.0.1:9000/b/k"}},
	{"url userinfo, user only", []string{"git", "clone", "https://S3CR3T@example.com/r.git"}, []string{"example.com/r.git"}},
	{"curl -u", []string{"curl", "-u", "alice:S3CR3T", "http://h/"}, []string{"alice", "http://h/"}},
	{"curl -u attached", []string{"curl", "-ualice:S3CR3T", "http://h/"}, []string{"alice"}},
	{"curl --user", []string{"curl", "--user", "alice:S3CR3T", "http://h/"}, []string{"alice"}},
	{"curl --user=", []string{"curl", "--user=alice:S3CR3T", "http://h/"}, []string{"alice"}},
	{"authorization header", []string{"curl", "-H", "Authorization: Bearer S3CR3T", "http://h/"}, []string{"Authorization:"}},
	{"authorization header attached", []string{"curl", "-HAuthorization: AWS4-HMAC-SHA256 Credential=x, Signature=S3CR3T"}, []string{"Authorization"}},
	{"--header=", []string{"curl", "--header=Authorization: Basic S3CR3T"}, []string{"Authorization"}},
	{"security token header", []string{"curl", "-H", "x-amz-security-token: S3CR3T", "http://h/"}, []string{"x-amz-security-token"}},
	{"--access-key", []string{"tool", "--access-key", "S3CR3T", "--bucket", "b"}, []string{"--bucket b"}},
	{"--secret-key=", []string{"tool", "--secret-key=S3CR3T"}, nil},
	{"--session-token", []string{"tool", "--session-token", "S3CR3T"}, nil},
	{"--aws-secret-access-key", []string{"tool", "--aws-secret-access-key", "S3CR3T"}, nil},
	{"--db-password", []string{"tool", "--db-password", "S3CR3T"}, nil},
	{"--db-password=", []string{"tool", "--db-password=S3CR3T"}, nil},
	{"--client-secret", []string{"tool", "--client-secret", "S3CR3T"}, nil},
	{"--client-secret=", []string{"tool", "--client-secret=S3CR3T"}, nil},
	{"--refresh-token", []string{"tool", "--refresh-token", "S3CR3T"}, nil},
	{"--refresh-token=", []string{"tool", "--refresh-token=S3CR3T"}, nil},
	{"AKIA key id", []string{"tool", "--id", "AKIAIOSFODNN7EXAMPLE"}, []string{"--id"}},
	{"ASIA key id in a value", []string{"tool", "creds=ASIAIOSFODNN7EXAMPLE/x"}, []string{"/x"}},
	{"NAME=value", []string{"env", "AWS_SECRET_ACCESS_KEY=S3CR3T", "prog"}, []string{"AWS_SECRET_ACCESS_KEY=", "prog"}},
	{"script", []string{"sh", "-c", `curl -sS -u alice:S3CR3T -H 'Authorization: Bearer S3CR3T' "http://bob:S3CR3T@h/k" --token S3CR3T; echo done`},
		[]string{"curl -sS -u alice:", "echo done", "bob"}},
}

func TestRedactForms(t *testing.T) {
	t.Parallel()
	for _, tc := range redactCases {
		got := strings.Join(Redact(tc.Argv), " ")
		if strings.Contains(got, "S3CR3T") || strings.Contains(got, "IOSFODNN7") {
			t.Errorf("%s: Redact(%q) = %q: the secret is left", tc.Name, tc.Argv, got)
		}
		for _, k := range tc.Keep {
			if !strings.Contains(got, k) {
				t.Errorf("%s: Redact(%q) = %q: lost %q", tc.Name, tc.Argv, got, k)
			}
		}
	}
}

func TestOptionsRedactCommand(t *testing.T) {
	t.Parallel()
	o := Options([]string{"curl", "-u", "alice:S3CR3T", "http://h/"}, time.Minute)
	if o["command"] != "curl -u alice:REDACTED http://h/" || o["timeout"] != "1m0s" {
		t.Errorf("Options = %v", o)
	}
}
