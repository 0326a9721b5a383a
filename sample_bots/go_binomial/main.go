// Command bot is go-binomial, a sample Perudo Arena bot: it dials the
// referee once, plays several sessions at once over that connection, and
// answers each request with the stateless binomial strategy of strategy.go.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	pb "gobinomial/perudov1"
)

const (
	protocolVersion = 1
	botVersion      = "go-binomial 1"
	// dialTimeout is how long the bot keeps trying to reach the referee, which
	// may still be starting when the arena launches the bot.
	dialTimeout = 10 * time.Second
)

// config is what the arena tells the bot, from the environment or flags.
type config struct {
	address  string
	name     string
	token    string
	sessions int
	tls      bool   // dial with TLS (a league server on the network)
	caFile   string // a CA certificate to trust instead of the system's
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("go-binomial: ")

	cfg, err := parseConfig(os.Args[1:])
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	conn, err := dial(ctx, cfg)
	if err != nil {
		log.Fatalf("cannot reach referee at %s: %v", cfg.address, err)
	}
	defer conn.Close()

	client := pb.NewRefereeServiceClient(conn)
	var wg sync.WaitGroup
	for i := range cfg.sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := playSession(ctx, client, cfg); err != nil {
				log.Printf("session %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
}

// parseConfig reads the PERUDO_* environment variables, then lets flags
// override them so the bot can also be run by hand.
func parseConfig(args []string) (config, error) {
	cfg := config{
		address:  os.Getenv("PERUDO_ADDRESS"),
		name:     os.Getenv("PERUDO_BOT_NAME"),
		token:    os.Getenv("PERUDO_TOKEN"),
		sessions: 1,
		tls:      os.Getenv("PERUDO_TLS") != "" && os.Getenv("PERUDO_TLS") != "0",
		caFile:   os.Getenv("PERUDO_CA_FILE"),
	}
	if s := os.Getenv("PERUDO_SESSIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return cfg, fmt.Errorf("PERUDO_SESSIONS=%q: %v", s, err)
		}
		cfg.sessions = n
	}

	fs := flag.NewFlagSet("bot", flag.ContinueOnError)
	fs.StringVar(&cfg.address, "address", cfg.address, "referee host:port, or unix:PATH in the arena's sandbox (PERUDO_ADDRESS)")
	fs.StringVar(&cfg.name, "name", cfg.name, "bot name sent in Hello (PERUDO_BOT_NAME)")
	fs.StringVar(&cfg.token, "token", cfg.token, "token sent in Hello (PERUDO_TOKEN)")
	fs.IntVar(&cfg.sessions, "sessions", cfg.sessions, "concurrent Play streams (PERUDO_SESSIONS)")
	fs.BoolVar(&cfg.tls, "tls", cfg.tls, "dial with TLS (PERUDO_TLS=1)")
	fs.StringVar(&cfg.caFile, "ca-file", cfg.caFile, "CA certificate to trust, implies --tls (PERUDO_CA_FILE)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}

	if cfg.address == "" {
		return cfg, errors.New("no referee address: set PERUDO_ADDRESS or --address")
	}
	if cfg.sessions < 1 {
		return cfg, fmt.Errorf("sessions must be at least 1, got %d", cfg.sessions)
	}
	return cfg, nil
}

// transport is plaintext, or TLS when PERUDO_TLS or PERUDO_CA_FILE says so,
// trusting the CA file if given and the system's CAs otherwise.
func transport(cfg config) (credentials.TransportCredentials, error) {
	if cfg.caFile != "" {
		return credentials.NewClientTLSFromFile(cfg.caFile, "")
	}
	if cfg.tls {
		return credentials.NewClientTLSFromCert(nil, ""), nil
	}
	return insecure.NewCredentials(), nil
}

// dial opens the one connection all sessions share and waits until it is
// ready, letting gRPC retry with backoff for up to dialTimeout.
func dial(ctx context.Context, cfg config) (*grpc.ClientConn, error) {
	creds, err := transport(cfg)
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(cfg.address, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	conn.Connect()
	for {
		state := conn.GetState()
		if state == connectivity.Ready {
			return conn, nil
		}
		if !conn.WaitForStateChange(ctx, state) {
			conn.Close()
			return nil, fmt.Errorf("not ready after %v (last state %v)", dialTimeout, state)
		}
	}
}

// playSession runs one Play stream from Hello to Goodbye. It returns nil when
// the referee closed the stream cleanly, and the stream's error otherwise.
func playSession(ctx context.Context, client pb.RefereeServiceClient, cfg config) error {
	stream, err := client.Play(ctx, grpc.WaitForReady(true))
	if err != nil {
		return err
	}

	hello := &pb.BotMessage{Kind: &pb.BotMessage_Hello{Hello: &pb.Hello{
		Name:            cfg.name,
		Token:           cfg.token,
		ProtocolVersion: protocolVersion,
		BotVersion:      botVersion,
		// Pings are answered below: the referee times our link by them, and a
		// league with a lag allowance does not charge it to our clock.
		AnswersPing: true,
	}}}
	if err := stream.Send(hello); err != nil {
		return recvError(stream, err)
	}

	first, err := stream.Recv()
	if err != nil {
		return streamEnd(err)
	}
	if first.GetWelcome() == nil {
		stream.CloseSend()
		return fmt.Errorf("expected Welcome, got %T", first.GetKind())
	}

	for {
		msg, err := stream.Recv()
		if err != nil {
			return streamEnd(err)
		}
		switch kind := msg.GetKind().(type) {
		case *pb.RefereeMessage_Request:
			req := kind.Request
			reply := &pb.BotMessage{Kind: &pb.BotMessage_Reply{Reply: &pb.ActionReply{
				RequestId: req.GetRequestId(),
				Action:    Decide(req),
			}}}
			if err := stream.Send(reply); err != nil {
				return recvError(stream, err)
			}
		case *pb.RefereeMessage_Ping:
			// At once, before anything else: the time to the Pong is the link's.
			pong := &pb.BotMessage{Kind: &pb.BotMessage_Pong{Pong: &pb.Pong{
				Nonce: kind.Ping.GetNonce(),
			}}}
			if err := stream.Send(pong); err != nil {
				return recvError(stream, err)
			}
		case *pb.RefereeMessage_GameOver:
			logGameOver(kind.GameOver)
		case *pb.RefereeMessage_Goodbye:
			if err := stream.CloseSend(); err != nil {
				return err
			}
			// Drain until the referee ends the call, so its status is seen.
			for {
				if _, err := stream.Recv(); err != nil {
					return streamEnd(err)
				}
			}
		}
	}
}

// recvError turns a failed Send into the stream's real status: gRPC reports
// a send on a finished stream as io.EOF and keeps the reason for Recv.
func recvError(stream grpc.BidiStreamingClient[pb.BotMessage, pb.RefereeMessage], err error) error {
	if errors.Is(err, io.EOF) {
		for {
			if _, rerr := stream.Recv(); rerr != nil {
				return streamEnd(rerr)
			}
		}
	}
	return err
}

// streamEnd maps the end of a stream to nil for a clean close.
func streamEnd(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// logGameOver writes the one line per game the arena's log cap allows.
func logGameOver(g *pb.GameOver) {
	place := 0
	for i, seat := range g.GetOrder() {
		if seat == g.GetSeat() {
			place = i + 1
		}
	}
	line := fmt.Sprintf("game %s: place %d of %d", g.GetGameId(), place, len(g.GetPlayers()))
	if f := g.GetFault(); f != nil {
		line += fmt.Sprintf(" (fault %v: %s)", f.GetKind(), f.GetDetail())
	}
	log.Print(line)
}
