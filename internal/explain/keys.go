package explain

import (
	"net/http"
	"net/url"
	"strings"
)

// objectKey is the object a request is about, bucket/key (container/blob
// on Azure), "" for one about a bucket or none: what tells a HEAD and the
// GET after it, or a PUT and the GET that reads it back, apart from two
// objects. GCS names an upload's object in its query.
func objectKey(api, path, rawQuery string) string {
	switch api {
	case "gcs":
		for _, prefix := range []string{"/upload/storage/v1/b/", "/download/storage/v1/b/", "/storage/v1/b/"} {
			rest, ok := strings.CutPrefix(path, prefix)
			if !ok {
				continue
			}
			bucket, obj, _ := strings.Cut(rest, "/o")
			obj = strings.TrimPrefix(obj, "/")
			if obj == "" {
				q, _ := url.ParseQuery(rawQuery)
				obj = q.Get("name")
			}
			if strings.Contains(obj, "/rewriteTo/") || strings.Contains(obj, "/copyTo/") || obj == "" {
				return ""
			}
			if u, err := url.PathUnescape(obj); err == nil {
				obj = u
			}
			return bucket + "/" + obj
		}
	case "azure":
		parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3) // account, container, blob
		if len(parts) == 3 && parts[2] != "" {
			return parts[1] + "/" + parts[2]
		}
		return ""
	}
	b, k := pathParts(path)
	if b == "" || k == "" {
		return ""
	}
	return b + "/" + k
}

// libraries are the User-Agent marks of the client libraries whose advice
// the findings know, most specific first.
var libraries = []struct{ mark, name string }{
	{"boto3/", "boto3"},
	{"botocore/", "boto3"},
	{"aws-sdk-js", "aws-sdk-js"},
	{"aws-sdk-go-v2", "aws-sdk-go-v2"},
	{"azsdk-python-storage-blob", "azure-storage-blob"},
	{"gcloud-python", "google-cloud-storage"},
	{"gl-python", "google-cloud-storage"},
	{"curl/", "curl"},
	{"Go-http-client", "go-net/http"},
}

// library names the client library a User-Agent header names ("" none).
func library(h http.Header) string {
	ua := strings.ToLower(h.Get("User-Agent"))
	if ua == "" {
		return ""
	}
	for _, l := range libraries {
		if strings.Contains(ua, strings.ToLower(l.mark)) {
			return l.name
		}
	}
	return ""
}

// rangeOf is a request's Range header, or part=N for a GET of one part of
// a multipart object (partNumber): a part of the object, not all of it.
func rangeOf(h http.Header, rawQuery string) string {
	if r := h.Get("Range"); r != "" {
		return r
	}
	if q, err := url.ParseQuery(rawQuery); err == nil && q.Get("partNumber") != "" {
		return "part=" + q.Get("partNumber")
	}
	return ""
}
