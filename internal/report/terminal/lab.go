package terminal

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/units"
)

// LabView is what the lab's description block shows, filled by the
// caller from its lab: the link, the network and the endpoints.
type LabView struct {
	Profile     string
	RTT, Jitter time.Duration
	// Bandwidth is the link's rate as written ("" for unlimited); Loss
	// the random loss probability each way.
	Bandwidth string
	Loss      float64
	// Model is the network model ("direct": loopback, nothing emulated);
	// Queue, MTU and the buffers are in bytes.
	Model                              string
	Queue, MTU, RecvBuffer, SendBuffer int
	// Resolver is the lab resolver's address ("" for none); Domain the
	// names it answers under; Bucket the lab's bucket.
	Resolver, Domain, Bucket string
	// Upstream is the bucket the lab fronts (nil: the lab's own servers).
	Upstream *LabUpstream
	// Endpoints are the local endpoints by API (s3, gcs, azure).
	Endpoints map[string]string
	// AccessKey and SecretKey are the lab-only S3 keys; Azure the Azure
	// connection string (lab-only).
	AccessKey, SecretKey, Azure string
	// Limits are the servers' request-rate limits as --limit reads them
	// ("" for none).
	Limits string
}

// LabUpstream is the bucket a lab fronts: its API, URL and bucket.
type LabUpstream struct{ API, URL, Bucket string }

// DescribeLink is the one-line description of a lab's link and network.
func DescribeLink(v LabView) string {
	bw := v.Bandwidth
	if bw == "" {
		bw = "unlimited"
	}
	s := fmt.Sprintf("profile %s: round trip %s, jitter %s, bandwidth %s", v.Profile, v.RTT, v.Jitter, bw)
	if v.Model == "direct" {
		return s + "; direct (loopback, nothing emulated)"
	}
	s += fmt.Sprintf(", loss %g%%", v.Loss*100)
	if v.Queue > 0 {
		s += fmt.Sprintf(", queue %s", units.FormatSize(int64(v.Queue)))
	}
	return s + fmt.Sprintf("; network: user-space TCP (netstack), MTU %d, receive window up to %s, send buffer up to %s",
		v.MTU, units.FormatSize(int64(v.RecvBuffer)), units.FormatSize(int64(v.SendBuffer)))
}

// WriteLab prints a foreground lab's endpoints, credentials (lab-only keys)
// and example commands.
func WriteLab(w io.Writer, v LabView, apis []string, caFile string) {
	fmt.Fprintf(w, "objbench lab: %s\n\n", DescribeLink(v))
	if v.Limits != "" {
		fmt.Fprintf(w, "Limits: %s (past them: S3 503 SlowDown, GCS 429, Azure 503 ServerBusy)\n\n", v.Limits)
	}
	if addr := v.Resolver; addr != "" {
		fmt.Fprintf(w, "Names: s3.%s, gcs.%s and azure.%s resolve to 127.0.0.1 at the lab's resolver %s (dig @%s -p %s s3.%s)\n\n",
			v.Domain, v.Domain, v.Domain, addr, addr[:strings.LastIndex(addr, ":")], addr[strings.LastIndex(addr, ":")+1:], v.Domain)
	}
	if up := v.Upstream; up != nil {
		fmt.Fprintf(w, "%s endpoint %s, in front of %s: bucket %s, with the upstream's own credentials\n", up.API, v.Endpoints[up.API], up.URL, up.Bucket)
		if caFile != "" {
			fmt.Fprintf(w, "TLS: trust the lab's CA certificate %s\n", caFile)
		}
		fmt.Fprintln(w, "\nPress Ctrl-C to stop.")
		return
	}
	s3, gcs, bucket := v.Endpoints["s3"], v.Endpoints["gcs"], v.Bucket
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "API\tENDPOINT\tBUCKET\tAUTH")
	fmt.Fprintf(tw, "s3\t%s\t%s\taccess key %s, secret %s (lab-only keys), region us-east-1\n", s3, bucket, v.AccessKey, v.SecretKey)
	fmt.Fprintf(tw, "gcs\t%s\t%s\tnone (JSON API; STORAGE_EMULATOR_HOST=%s)\n", gcs, bucket, strings.TrimPrefix(strings.TrimPrefix(gcs, "http://"), "https://"))
	if len(apis) > 2 {
		fmt.Fprintf(tw, "azure\t%s\t%s\tAZURE_STORAGE_CONNECTION_STRING='%s'\n", v.Endpoints["azure"], bucket, v.Azure)
	}
	tw.Flush()
	caOpt, curlCA := "", ""
	if caFile != "" {
		fmt.Fprintf(w, "\nTLS: trust the lab's CA certificate %s\n", caFile)
		caOpt, curlCA = " --ca-bundle "+caFile, " --cacert "+caFile
	}
	fmt.Fprintf(w, `
Examples:
  export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_REGION=us-east-1
  aws --endpoint-url %s%s s3 cp ./file s3://%s/file
  aws --endpoint-url %s%s s3 ls s3://%s/
  curl%s %s/%s/file          # the embedded S3 server accepts unsigned requests
  curl%s -X POST --data-binary @file '%s/upload/storage/v1/b/%s/o?uploadType=media&name=file'
  objbench run s3://%s --endpoint %s      # with the exports above

Press Ctrl-C to stop.
`, v.AccessKey, v.SecretKey, s3, caOpt, bucket, s3, caOpt, bucket,
		curlCA, s3, bucket, curlCA, gcs, bucket, bucket, s3)
}

// WriteLabCheckJSON prints lab check's modes as JSON.
func WriteLabCheckJSON(w io.Writer, modes []document.LabCheckMode, pass bool) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(document.NewLabCheck(modes, pass))
}

// WriteLabCheckResult prints lab check's modes as JSON or as tables, then,
// as text, that every phase passed when no row failed.
func WriteLabCheckResult(w io.Writer, modes []document.LabCheckMode, failed int, jsonOut bool) error {
	if jsonOut {
		return WriteLabCheckJSON(w, modes, failed == 0)
	}
	WriteLabCheck(w, modes)
	if failed == 0 {
		_, err := fmt.Fprintln(w, "lab check: every phase within tolerance")
		return err
	}
	return nil
}

// LabCheckError is lab check's error when failed rows missed: how many,
// and how many of them the machine was busy for (CheckRow.MissedBusy).
func LabCheckError(modes []document.LabCheckMode, failed int) error {
	if failed == 0 {
		return nil
	}
	if busy := document.NewLabCheck(modes, false).MissedBusyRows(); busy > 0 {
		return fmt.Errorf("lab check: %d row(s) outside tolerance, %d of them measured while the machine was busy", failed, busy)
	}
	return fmt.Errorf("lab check: %d row(s) outside tolerance", failed)
}

// WriteLabCheck prints lab check's table per mode: each row's raw request,
// then each SDK; a row passes only when every client does. A client's miss
// measured while the wire's packets came late is marked busy, and the
// table says what that means.
func WriteLabCheck(w io.Writer, modes []document.LabCheckMode) {
	for _, r := range modes {
		busy := r.BusyMisses()
		fmt.Fprintf(w, "%s, %s\n", r.Link, r.TLS)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "case\tphase\tclient\tRTTs\texpected ms\tmeasured ms\t± ms\tresult\t")
		for _, row := range r.Rows {
			for i, c := range row.Measures() {
				name, phase := row.Case, row.Phase
				if i > 0 {
					name, phase = "", ""
				}
				expected, tol := fmt.Sprintf("%.1f", msOf(c.Expected)), fmt.Sprintf("%.1f", msOf(c.Tolerance))
				if row.Bound != "" {
					expected, tol = "≤ "+expected, "-"
				}
				result := passFail(c.Pass)
				if c.MissedBusy() {
					result = fmt.Sprintf("FAIL, busy (%.0f%% late)", 100*c.Late)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%s\t%.1f\t%s\t%s\t\n", name, phase, c.Client, row.RTTs,
					expected, msOf(c.Measured), tol, result)
			}
		}
		tw.Flush()
		if busy > 0 {
			fmt.Fprintf(w, "busy: %d miss(es) above were measured while over %.0f%% of the wire's packets came late:\n"+
				"the machine's CPU was elsewhere, so the miss may be the machine's, not the link model's; run again on a quiet machine.\n",
				busy, 100*document.BusyShare)
		}
		fmt.Fprintln(w)
	}
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ProfileList is the lab's profiles, one a line with what each emulates
// (each given as name and description), for lab's help.
func ProfileList(profiles [][2]string) string {
	var b strings.Builder
	for _, p := range profiles {
		fmt.Fprintf(&b, "  %-17s %s\n", p[0], p[1])
	}
	return b.String()
}
