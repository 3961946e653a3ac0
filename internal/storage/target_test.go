package storage

import (
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Target
		wantErr string
	}{
		{in: "s3://bucket", want: Target{Scheme: "s3", Bucket: "bucket"}},
		{in: "s3://bucket/", want: Target{Scheme: "s3", Bucket: "bucket"}},
		{in: "s3://bucket/a/b", want: Target{Scheme: "s3", Bucket: "bucket", Prefix: "a/b/"}},
		{in: "s3://bucket//a/b//", want: Target{Scheme: "s3", Bucket: "bucket", Prefix: "a/b/"}},
		{in: "S3://my.bucket-1/p/", want: Target{Scheme: "s3", Bucket: "my.bucket-1", Prefix: "p/"}},
		{in: "s3://bucket/with space/ünï", want: Target{Scheme: "s3", Bucket: "bucket", Prefix: "with space/ünï/"}},
		{in: "s3://bucket/a%20b", want: Target{Scheme: "s3", Bucket: "bucket", Prefix: "a b/"}},
		{in: "s3://bucket/50%25/a%3Fb%23c", want: Target{Scheme: "s3", Bucket: "bucket", Prefix: "50%/a?b#c/"}},
		{in: "s3://bucket/..x/x..", want: Target{Scheme: "s3", Bucket: "bucket", Prefix: "..x/x../"}},
		{in: "gs://under_score", want: Target{Scheme: "gs", Bucket: "under_score"}},
		{in: "az://acct/cont/pre", want: Target{Scheme: "az", Account: "acct", Bucket: "cont", Prefix: "pre/"}},
		{in: "az://devstoreaccount1/cont", want: Target{Scheme: "az", Account: "devstoreaccount1", Bucket: "cont"}},
		{in: "mem://test-bucket", want: Target{Scheme: "mem", Bucket: "test-bucket"}},

		{in: "", wantErr: "empty target"},
		{in: "bucket", wantErr: "malformed"},
		{in: "s3:bucket", wantErr: "malformed"},
		{in: "s3:/bucket", wantErr: "malformed"},
		{in: "://bucket", wantErr: "malformed"},
		{in: "s3://", wantErr: "bucket name is empty"},
		{in: "s3:///prefix", wantErr: "bucket name is empty"},
		{in: "s3://ab", wantErr: "3 to 63"},
		{in: "s3://" + strings.Repeat("a", 64), wantErr: "3 to 63"},
		{in: "s3://Bucket", wantErr: "lower-case"},
		{in: "s3://buck$et", wantErr: "lower-case"},
		{in: "s3://-bucket", wantErr: "begin and end"},
		{in: "s3://bucket.", wantErr: "begin and end"},
		{in: "s3://bucket/../x", wantErr: `".."`},
		{in: "s3://bucket/a/..", wantErr: `".."`},
		{in: "s3://bucket/%2e%2e/x", wantErr: `".."`},
		{in: "s3://bucket/a%2F..%2Fb", wantErr: `".."`},
		{in: "s3://bucket/a/./x", wantErr: `"."`},
		{in: "s3://bucket/a%0Ab", wantErr: "control characters"},
		{in: "s3://user@bucket", wantErr: "no user"},
		{in: "s3://user:pw@bucket", wantErr: "no user"},
		{in: "s3://bucket:9000", wantErr: "--endpoint"},
		{in: "s3://bucket:", wantErr: "--endpoint"},
		{in: "s3://bucket?x=1", wantErr: "query"},
		{in: "s3://bucket?", wantErr: "query"},
		{in: "s3://bucket/p#frag", wantErr: "fragment"},
		{in: "s3://bucket#", wantErr: "fragment"},
		{in: "s3://bucket/a b%zz", wantErr: "malformed"},
		{in: "az://acct", wantErr: "bucket name is empty"},
		{in: "az:///cont", wantErr: "az://account/container"},
		{in: "az://Acct/cont", wantErr: "lower-case letters and digits"},
		{in: "az://a-cct/cont", wantErr: "lower-case letters and digits"},
		{in: "az://ab/cont", wantErr: "3 to 24"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTarget(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseTarget(%q) = %+v, %v; want error containing %q", tc.in, got, err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error spans lines: %q", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseTarget(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			s := got.String()
			back, err := ParseTarget(s)
			if err != nil || back != got {
				t.Errorf("round trip via %q = %+v, %v; want %+v", s, back, err, got)
			}
		})
	}
}

func TestTargetString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t    Target
		want string
	}{
		{Target{Scheme: "s3", Bucket: "b-1"}, "s3://b-1"},
		{Target{Scheme: "s3", Bucket: "b-1", Prefix: "a/b/"}, "s3://b-1/a/b"},
		{Target{Scheme: "s3", Bucket: "b-1", Prefix: "a b/ü/"}, "s3://b-1/a b/ü"},
		{Target{Scheme: "s3", Bucket: "b-1", Prefix: "100%/q?/h#/"}, "s3://b-1/100%25/q%3F/h%23"},
		{Target{Scheme: "az", Account: "acct", Bucket: "cont", Prefix: "p/"}, "az://acct/cont/p"},
	}
	for _, tc := range tests {
		if got := tc.t.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.t, got, tc.want)
		}
	}
}
