// Command ferretdb runs FerretDB 1.24 (MongoDB wire protocol) through its
// embeddable package. The upstream cmd/ferretdb refuses to start when built
// outside its own repository (it needs a generated version file), so the
// project builds this small wrapper instead.
package main

import (
	"context"
	"flag"
	"io"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	handler := flag.String("handler", "sqlite", "backend: sqlite or postgresql")
	sqliteURL := flag.String("sqlite-url", "file:data/", "SQLite directory URI")
	postgresURL := flag.String("postgresql-url", "", "PostgreSQL connection string")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	exitOnStdinEOF := flag.Bool("exit-on-stdin-eof", false, "stop when standard input closes (the parent process died)")
	flag.Parse()

	// The live heap is small (tens of MB) and every document read or written allocates its decoding: collecting
	// when the heap has grown 4 times over rather than once (Go's default) costs little memory and saves most of
	// the collector's work. GOGC, when set, still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		log.Fatalf("bad -log-level: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listen},
		Logger:        logger,
		Handler:       *handler,
		SQLiteURL:     *sqliteURL,
		PostgreSQLURL: *postgresURL,
	})
	if err != nil {
		log.Fatal(err)
	}

	// A CPU profile of the whole run, for measuring the store under a benchmark (go tool pprof reads it); with
	// FERRETDB_CPU_PROFILE_ON_SIGNAL set, of the time between two SIGUSR1s instead (one phase of a benchmark).
	if path := os.Getenv("FERRETDB_CPU_PROFILE"); path != "" {
		if os.Getenv("FERRETDB_CPU_PROFILE_ON_SIGNAL") == "" {
			startCPUProfile(path)
			defer pprof.StopCPUProfile()
		} else {
			toggles := make(chan os.Signal, 1)
			signal.Notify(toggles, syscall.SIGUSR1)
			go func() {
				<-toggles
				startCPUProfile(path)
				<-toggles
				pprof.StopCPUProfile()
			}()
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *exitOnStdinEOF {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	if err := f.Run(ctx); err != nil {
		log.Fatal(err)
	}
}

func startCPUProfile(path string) {
	out, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		log.Fatal(err)
	}
}
