package server

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDecodeAWSChunked: an aws-chunked upload with a trailing checksum (the
// AWS SDKs' default since 2025) reaches the S3 handler as the plain object
// with its Content-Length; a malformed one is refused; others pass as sent.
func TestDecodeAWSChunked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, sha, enc, decoded string
		status                        int
		want                          string
	}{
		{"unsigned trailer", "5\r\nhello\r\n6\r\n world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n",
			"STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "11", 200, "hello world"},
		{"signed chunks", "5;chunk-signature=abc\r\nhello\r\n0;chunk-signature=def\r\nx-amz-checksum-crc32:x\r\n\r\n",
			"STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", "aws-chunked,gzip", "5", 200, "hello"},
		{"empty object", "0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n",
			"STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "0", 200, ""},
		{"length mismatch", "5\r\nhello\r\n0\r\n\r\n", "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "6", 400, ""},
		{"bad size", "zz\r\nhello\r\n0\r\n\r\n", "STREAMING-UNSIGNED-PAYLOAD-TRAILER", "aws-chunked", "", 400, ""},
		{"plain upload", "raw body", "UNSIGNED-PAYLOAD", "", "", 200, "raw body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, gotLen, gotEnc string
			h := decodeAWSChunked(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got, gotLen, gotEnc = string(b), r.Header.Get("Content-Length"), r.Header.Get("Content-Encoding")
			}))
			req := httptest.NewRequest("PUT", "/objbench/k", strings.NewReader(tc.body))
			req.Header.Set("X-Amz-Content-Sha256", tc.sha)
			if tc.enc != "" {
				req.Header.Set("Content-Encoding", tc.enc)
			}
			if tc.decoded != "" {
				req.Header.Set("X-Amz-Decoded-Content-Length", tc.decoded)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.status != 200 {
				return
			}
			if got != tc.want {
				t.Errorf("body %q, want %q", got, tc.want)
			}
			if tc.enc != "" && (gotLen != tc.decoded || strings.Contains(gotEnc, "aws-chunked")) {
				t.Errorf("Content-Length %q Content-Encoding %q, want %s and no aws-chunked", gotLen, gotEnc, tc.decoded)
			}
		})
	}
}

// TestDecodeAWSChunkedKeepsConnection: after an aws-chunked upload sent
// with Expect: 100-continue (boto3's default over HTTPS) the server keeps
// the connection, so a reused client reuses it.
func TestDecodeAWSChunkedKeepsConnection(t *testing.T) {
	t.Parallel()
	h := decodeAWSChunked(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	// As the lab's wrappers do: the handler gets a copy of the request, so
	// the server still holds the original body and sees whether it was read.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(r.Context()))
	}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}}
	reused := 0
	for i := range 3 {
		req, err := http.NewRequest("PUT", srv.URL+"/objbench/k", io.NopCloser(strings.NewReader("5\r\nhello\r\n0\r\nx-amz-checksum-crc32:x\r\n\r\n")))
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = -1 // Transfer-Encoding: chunked
		req.Header.Set("Expect", "100-continue")
		req.Header.Set("Content-Encoding", "aws-chunked")
		req.Header.Set("X-Amz-Content-Sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
		req.Header.Set("X-Amz-Decoded-Content-Length", "5")
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				if info.Reused {
					reused++
				}
			},
		}))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("upload %d: status %d", i, resp.StatusCode)
		}
	}
	if reused != 2 {
		t.Errorf("%d of 3 uploads reused the connection, want 2", reused)
	}
}

// TestS3HandlerAWSChunkedRoundTrip: the lab's S3 server stores an
// aws-chunked upload as the object itself, framing and trailer removed.
func TestS3HandlerAWSChunkedRoundTrip(t *testing.T) {
	t.Parallel()
	h, err := S3Handler("")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest("PUT", srv.URL+"/"+Bucket+"/k", strings.NewReader("4\r\nobje\r\n2\r\nct\r\n0\r\nx-amz-checksum-crc32:x\r\n\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = -1
	req.Header.Set("Content-Encoding", "aws-chunked")
	req.Header.Set("X-Amz-Content-Sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
	req.Header.Set("X-Amz-Decoded-Content-Length", "6")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("PUT: status %d", resp.StatusCode)
	}
	resp, err = http.Get(srv.URL + "/" + Bucket + "/k")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if string(got) != "object" {
		t.Errorf("GET: %q, want %q", got, "object")
	}
}

// TestDecodeAWSChunkedStreams: a body above maxAWSChunkedBody is decoded
// as the handler reads it (never held): the handler gets the object's
// bytes, or an error when they are not the declared length.
func TestDecodeAWSChunkedStreams(t *testing.T) {
	t.Parallel()
	data := strings.Repeat("0123456789abcdef", (3<<20)/16)
	var enc strings.Builder
	for i := 0; i < len(data); i += 1 << 16 {
		chunk := data[i:min(i+1<<16, len(data))]
		fmt.Fprintf(&enc, "%x;chunk-signature=x\r\n%s\r\n", len(chunk), chunk)
	}
	enc.WriteString("0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n")
	for _, tc := range []struct {
		name    string
		decoded int
		wantErr bool
	}{{"whole", len(data), false}, {"declared longer", len(data) + 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []byte
			var rerr error
			var clen int64
			h := decodeAWSChunked(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				clen = r.ContentLength
				got, rerr = io.ReadAll(r.Body)
			}))
			req := httptest.NewRequest("PUT", "/objbench/k", strings.NewReader(enc.String()))
			req.Header.Set("X-Amz-Content-Sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER")
			req.Header.Set("Content-Encoding", "aws-chunked")
			req.Header.Set("X-Amz-Decoded-Content-Length", strconv.Itoa(tc.decoded))
			h.ServeHTTP(httptest.NewRecorder(), req)
			if clen != int64(tc.decoded) {
				t.Errorf("Content-Length %d, want %d", clen, tc.decoded)
			}
			if tc.wantErr != (rerr != nil) || !tc.wantErr && string(got) != data {
				t.Errorf("read %d bytes, err %v; want %d bytes, error %v", len(got), rerr, len(data), tc.wantErr)
			}
		})
	}
}
