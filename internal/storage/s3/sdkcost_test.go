package s3

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/objbench/objbench/internal/storage"
)

// cannedTransport answers every request at once with a fixed response, as
// MinIO does (its headers included), and reads the request body: what is
// left is the client library's own work per request, with no network and
// no server. The headers are MinIO's answer to a 1 KiB GetObject.
type cannedTransport struct{ body []byte }

func (c *cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	h := http.Header{
		"Accept-Ranges":             {"bytes"},
		"Content-Type":              {"application/octet-stream"},
		"Date":                      {"Mon, 23 Nov 2026 17:00:00 GMT"},
		"Etag":                      {`"0f343b0931126a20f133d67c2b018a3b"`},
		"Last-Modified":             {"Mon, 23 Nov 2026 16:59:00 GMT"},
		"Server":                    {"MinIO"},
		"Strict-Transport-Security": {"max-age=31536000; includeSubDomains"},
		"Vary":                      {"Origin", "Accept-Encoding"},
		"X-Amz-Id-2":                {"dd9025bab4ad464b049177c95eb6ebf374d3b3fd1af9251148b658df7ac2e3e8"},
		"X-Amz-Request-Id":          {"187A9B2C3D4E5F60"},
		"X-Content-Type-Options":    {"nosniff"},
		"X-Ratelimit-Limit":         {"2048"},
		"X-Ratelimit-Remaining":     {"2048"},
		"X-Xss-Protection":          {"1; mode=block"},
	}
	body := []byte(nil)
	if req.Method == http.MethodGet {
		body = c.body
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body)), Request: req}, nil
}

// The SDK's own work per request, without the network or a server:
// go test ./internal/storage/s3 -run - -bench SDKCost -benchmem.
func BenchmarkSDKCostGet1KiB(b *testing.B) { benchSDKCost(b, "get") }

// BenchmarkSDKCostPut1KiB is one 1 KiB PutObject per operation.
func BenchmarkSDKCostPut1KiB(b *testing.B) { benchSDKCost(b, "put") }

func benchSDKCost(b *testing.B, op string) {
	benchSDKCostStyle(b, op, storage.UploadSingle)
}

// BenchmarkSDKCostPutAuto1KiB is the default upload style: the transfer manager.
func BenchmarkSDKCostPutAuto1KiB(b *testing.B) { benchSDKCostStyle(b, "put", storage.UploadAuto) }

func benchSDKCostStyle(b *testing.B, op string, style storage.UploadStyle) {
	data := make([]byte, 1024)
	ctx := context.Background()
	be, err := New(ctx, storage.Target{Scheme: "s3", Bucket: "bench"},
		storage.Options{Endpoint: "http://127.0.0.1:9000", Region: "us-east-1", MaxAttempts: 1, Upload: style,
			Credentials: &storage.StaticCredentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},
			HTTPClient:  &http.Client{Transport: &cannedTransport{body: data}}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if op == "get" {
			_, err = be.Get(ctx, "bench/obj", io.Discard)
		} else {
			err = be.Put(ctx, "bench/obj", bytes.NewReader(data), int64(len(data)))
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
