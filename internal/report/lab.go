package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/units"
)

// DescribeLink is the one-line description of a lab's link and network.
func DescribeLink(l *lab.Lab) string {
	k := l.Link()
	bw := lab.FormatBandwidth(k.Bandwidth)
	if bw == "" {
		bw = "unlimited"
	}
	s := fmt.Sprintf("profile %s: round trip %s, jitter %s, bandwidth %s", l.Profile(), k.RTT, k.Jitter, bw)
	n := l.Network()
	if n.Model == "direct" {
		return s + "; direct (loopback, nothing emulated)"
	}
	s += fmt.Sprintf(", loss %g%%", k.Loss*100)
	if n.Queue > 0 {
		s += fmt.Sprintf(", queue %s", units.FormatSize(int64(n.Queue)))
	}
	return s + fmt.Sprintf("; network: user-space TCP (netstack), MTU %d, receive window up to %s, send buffer up to %s",
		n.MTU, units.FormatSize(int64(n.RecvBuffer)), units.FormatSize(int64(n.SendBuffer)))
}

// WriteLab prints a foreground lab's endpoints, credentials (lab-only keys)
// and example commands.
func WriteLab(w io.Writer, l *lab.Lab, apis []string, caFile string) {
	fmt.Fprintf(w, "objbench lab: %s\n\n", DescribeLink(l))
	if addr := l.ResolverAddr(); addr != "" {
		fmt.Fprintf(w, "Names: s3.%s, gcs.%s and azure.%s resolve to 127.0.0.1 at the lab's resolver %s (dig @%s -p %s s3.%s)\n\n",
			lab.Domain, lab.Domain, lab.Domain, addr, addr[:strings.LastIndex(addr, ":")], addr[strings.LastIndex(addr, ":")+1:], lab.Domain)
	}
	if up := l.Upstream(); up != nil {
		fmt.Fprintf(w, "%s endpoint %s, in front of %s: bucket %s, with the upstream's own credentials\n", up.API, l.LocalEndpoint(up.API), up.URL, up.Bucket)
		if caFile != "" {
			fmt.Fprintf(w, "TLS: trust the lab's CA certificate %s\n", caFile)
		}
		fmt.Fprintln(w, "\nPress Ctrl-C to stop.")
		return
	}
	s3 := l.LocalEndpoint("s3")
	creds := l.Credentials("s3")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "API\tENDPOINT\tBUCKET\tAUTH")
	fmt.Fprintf(tw, "s3\t%s\t%s\taccess key %s, secret %s (lab-only keys), region us-east-1\n", s3, lab.Bucket, creds.AccessKeyID, creds.SecretAccessKey)
	fmt.Fprintf(tw, "gcs\t%s\t%s\tnone (JSON API; STORAGE_EMULATOR_HOST=%s)\n", l.LocalEndpoint("gcs"), lab.Bucket, strings.TrimPrefix(strings.TrimPrefix(l.LocalEndpoint("gcs"), "http://"), "https://"))
	if len(apis) > 2 {
		fmt.Fprintf(tw, "azure\t%s\t%s\tAZURE_STORAGE_CONNECTION_STRING='%s'\n", l.LocalEndpoint("azure"), lab.Bucket, l.AzureConnectionString())
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
`, creds.AccessKeyID, creds.SecretAccessKey, s3, caOpt, lab.Bucket, s3, caOpt, lab.Bucket,
		curlCA, s3, lab.Bucket, curlCA, l.LocalEndpoint("gcs"), lab.Bucket, lab.Bucket, s3)
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

// ProfileList is the lab's profiles, one a line with what each emulates,
// for lab's help.
func ProfileList() string {
	var b strings.Builder
	for _, p := range lab.Profiles() {
		fmt.Fprintf(&b, "  %-17s %s\n", p.Name, p.Description)
	}
	return b.String()
}
