// Command corpus is a program of known behaviour for explain's corpus
// test: it talks S3 (path style, unsigned: the lab does not check
// signatures) to $AWS_ENDPOINT_URL with plain net/http, in one of these
// ways:
//
//	pooled      4 workers share one client (4 idle connections kept): 24 PUTs, then 24 GETs
//	multipart   one 15 MiB object in 3 parts of 5 MiB uploaded by 3 goroutines
//	per-object  4 workers, a new client for every object (closed after it): 16 PUTs
//	sequential  one client, 8 PUTs then 8 GETs, one at a time
//	head-create HEAD a new bucket (404), create it, then 4 workers PUT 16 objects into it
package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: corpus pooled|multipart|per-object|sequential|head-create")
		os.Exit(2)
	}
	if err := run(os.Args[1], strings.TrimSuffix(os.Getenv("AWS_ENDPOINT_URL"), "/")); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func newClient(idle int) *http.Client {
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: idle, ForceAttemptHTTP2: true}}
}

// do sends one request and reads its answer; want is the status expected.
func do(c *http.Client, method, url string, body []byte, want int) ([]byte, error) {
	req, err := http.NewRequestWithContext(context.Background(), method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body == nil {
		req.Body, req.ContentLength = nil, 0
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: status %d, want %d: %s", method, url, resp.StatusCode, want, b)
	}
	return b, nil
}

// workers runs f(i) for i in [0, n) on w goroutines; the first error wins.
func workers(n, w int, f func(i int) error) error {
	var mu sync.Mutex
	var first error
	next := 0
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func run(mode, ep string) error {
	body := bytes.Repeat([]byte("x"), 1024)
	key := func(i int) string { return fmt.Sprintf("%s/objbench/corpus-%s/obj-%03d", ep, mode, i) }
	switch mode {
	case "pooled":
		c := newClient(4)
		if err := workers(24, 4, func(i int) error { _, err := do(c, "PUT", key(i), body, 200); return err }); err != nil {
			return err
		}
		return workers(24, 4, func(i int) error { _, err := do(c, "GET", key(i), nil, 200); return err })
	case "sequential":
		c := newClient(1)
		for i := range 8 {
			if _, err := do(c, "PUT", key(i), body, 200); err != nil {
				return err
			}
		}
		for i := range 8 {
			if _, err := do(c, "GET", key(i), nil, 200); err != nil {
				return err
			}
		}
		return nil
	case "per-object":
		return workers(16, 4, func(i int) error {
			c := newClient(1)
			defer c.CloseIdleConnections()
			_, err := do(c, "PUT", key(i), body, 200)
			return err
		})
	case "head-create":
		c := newClient(4)
		bucket := ep + "/corpus-new"
		if _, err := do(c, "HEAD", bucket, nil, 404); err != nil {
			return err
		}
		if _, err := do(c, "PUT", bucket, nil, 200); err != nil {
			return err
		}
		return workers(16, 4, func(i int) error {
			_, err := do(c, "PUT", fmt.Sprintf("%s/obj-%03d", bucket, i), body, 200)
			return err
		})
	case "multipart":
		c := newClient(3)
		obj := key(0)
		b, err := do(c, "POST", obj+"?uploads", nil, 200)
		if err != nil {
			return err
		}
		var init struct {
			UploadID string `xml:"UploadId"`
		}
		if err := xml.Unmarshal(b, &init); err != nil || init.UploadID == "" {
			return fmt.Errorf("CreateMultipartUpload answer %q: %v", b, err)
		}
		part := bytes.Repeat([]byte("p"), 5<<20)
		etags := make([]string, 3)
		err = workers(3, 3, func(i int) error {
			req, err := http.NewRequestWithContext(context.Background(), "PUT", fmt.Sprintf("%s?partNumber=%d&uploadId=%s", obj, i+1, init.UploadID), bytes.NewReader(part))
			if err != nil {
				return err
			}
			resp, err := c.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != 200 {
				return fmt.Errorf("UploadPart %d: status %d", i+1, resp.StatusCode)
			}
			etags[i] = resp.Header.Get("ETag")
			return nil
		})
		if err != nil {
			return err
		}
		var done strings.Builder
		done.WriteString("<CompleteMultipartUpload>")
		for i, e := range etags {
			fmt.Fprintf(&done, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, e)
		}
		done.WriteString("</CompleteMultipartUpload>")
		_, err = do(c, "POST", obj+"?uploadId="+init.UploadID, []byte(done.String()), 200)
		return err
	}
	return fmt.Errorf("unknown mode %q", mode)
}
