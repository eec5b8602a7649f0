// SPDX-License-Identifier: Apache-2.0

// golease measures what etcd's own Go client (clientv3's Lease) costs to keep many leases alive,
// the way bench_lease_scale measures SelfHealingKeepAlive: N leases of one TTL, one key put on
// each, all renewed by KeepAlive over one client, and a quiet window over which the process's
// CPU and resident memory are read. Each lease's response channel is drained by a goroutine of
// its own, as concurrency.Session does. It prints one JSON object, which bench_lease_scale
// places beside its own figures, so both clients are measured on the same server in the same
// run.
//
// Built by scripts/bench against Debian's packaged etcd sources (golang-etcd-server-dev) in
// GOPATH mode, so it needs no network.
package main

import (
	"benchreport"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/clientv3"
)

// forEach runs work(i) for i in [0, n), at most concurrency at a time, and fails on the first error.
func forEach(n, concurrency int, what string, work func(i int) error) {
	indexes := make(chan int)
	var running sync.WaitGroup
	for w := 0; w < concurrency; w++ {
		running.Add(1)
		go func() {
			defer running.Done()
			for i := range indexes {
				if err := work(i); err != nil {
					benchreport.Fail("golease", "%s: %v", what, err)
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		indexes <- i
	}
	close(indexes)
	running.Wait()
}

// keepOneAndRevoke grants a lease, waits for its first renewal and revokes it.
func keepOneAndRevoke(client *clientv3.Client, ttl int64) error {
	granted, err := client.Grant(context.Background(), ttl)
	if err != nil {
		return err
	}
	renewing, stop := context.WithCancel(context.Background())
	defer stop()
	renewals, err := client.KeepAlive(renewing, granted.ID)
	if err != nil {
		return err
	}
	if _, open := <-renewals; !open {
		return fmt.Errorf("lease %x was not renewed", granted.ID)
	}
	stop()
	_, err = client.Revoke(context.Background(), granted.ID)
	return err
}

func main() {
	endpoints := flag.String("endpoints", "", "comma-separated client URLs of the etcd to measure")
	leases := flag.Int("leases", 10000, "leases to grant and keep alive, one key each")
	ttl := flag.Int64("ttl", 30, "lease TTL in seconds")
	idle := flag.Int("idle", 30, "window in seconds over which CPU and memory are measured")
	concurrency := flag.Int("concurrency", 100, "grants and puts in flight at once")
	prefix := flag.String("prefix", "/bench/golease/", "key prefix; lease i puts PREFIX<i>")
	flag.Parse()
	if *endpoints == "" || *leases <= 0 || *ttl <= 0 || *idle <= 0 || *concurrency <= 0 {
		benchreport.Fail("golease", "--endpoints and positive --leases, --ttl, --idle and --concurrency are needed")
	}

	client, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(*endpoints, ","), DialTimeout: 5 * time.Second})
	if err != nil {
		benchreport.Fail("golease", "connecting: %v", err)
	}
	defer client.Close()
	// The baseline is a client that has kept one lease and let it go, as the other side's is: it
	// holds the connection and the goroutines a first keep-alive starts.
	if err := keepOneAndRevoke(client, *ttl); err != nil {
		benchreport.Fail("golease", "warm-up lease: %v", err)
	}
	rssBefore := benchreport.ResidentKiB()

	ids := make([]clientv3.LeaseID, *leases)
	var responses, closed int64
	started := time.Now()
	forEach(*leases, *concurrency, "starting a lease", func(i int) error {
		granted, err := client.Grant(context.Background(), *ttl)
		if err != nil {
			return err
		}
		ids[i] = granted.ID
		if _, err := client.Put(context.Background(), fmt.Sprintf("%s%d", *prefix, i), "present",
			clientv3.WithLease(granted.ID)); err != nil {
			return err
		}
		renewals, err := client.KeepAlive(context.Background(), granted.ID)
		if err != nil {
			return err
		}
		go func() {
			for range renewals {
				atomic.AddInt64(&responses, 1)
			}
			atomic.AddInt64(&closed, 1)
		}()
		return nil
	})
	startSeconds := time.Since(started).Seconds()
	rssAfterStart := benchreport.ResidentKiB()

	cpuBefore := benchreport.ProcessCPUMicros()
	responsesBefore := atomic.LoadInt64(&responses)
	windowStart := time.Now()
	time.Sleep(time.Duration(*idle) * time.Second)
	window := time.Since(windowStart).Seconds()
	cpu := float64(benchreport.ProcessCPUMicros()-cpuBefore) / 1e6
	renewed := atomic.LoadInt64(&responses) - responsesBefore
	rssAfterIdle := benchreport.ResidentKiB()
	if lost := atomic.LoadInt64(&closed); lost != 0 {
		benchreport.Fail("golease", "%d of %d keep-alives stopped during the window", lost, *leases)
	}

	// Gone before the next client is measured on the same server.
	forEach(*leases, *concurrency, "revoking", func(i int) error {
		_, err := client.Revoke(context.Background(), ids[i])
		return err
	})

	mib := func(kib int64) float64 { return math.Round(float64(kib)/1024*10) / 10 }
	result := map[string]interface{}{
		"client":                  "go.etcd.io/etcd/clientv3 Lease.KeepAlive",
		"leases":                  *leases,
		"ttl_s":                   *ttl,
		"start_all_s":             math.Round(startSeconds*10) / 10,
		"window_s":                math.Round(window*10) / 10,
		"renewals_per_s":          math.Round(float64(renewed)/window*10) / 10,
		"cpu_percent_of_one_core": math.Round(cpu/window*1000) / 10,
		// Unrounded enough for a ratio at a thousand leases, where the percentage is a few tenths.
		"cpu_ms": math.Round(cpu*1e4) / 10,
		"memory": map[string]interface{}{
			"rss_before_mib":      mib(rssBefore),
			"rss_after_start_mib": mib(rssAfterStart),
			"rss_after_idle_mib":  mib(rssAfterIdle),
			"bytes_per_lease":     (rssAfterIdle - rssBefore) * 1024 / int64(*leases),
		},
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
