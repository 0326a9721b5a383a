// Command bot is a minimal Perudo Arena bot in Go.
package main

import (
	"context"
	"errors"
	"io"
	"log"
	"os"
	"strconv"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "perudobot/perudov1"
)

func main() {
	conn, err := grpc.NewClient(os.Getenv("PERUDO_ADDRESS"),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client := pb.NewRefereeServiceClient(conn)
	sessions, _ := strconv.Atoi(os.Getenv("PERUDO_SESSIONS"))
	var wg sync.WaitGroup
	for range max(sessions, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := play(client); err != nil {
				log.Print(err)
			}
		}()
	}
	wg.Wait()
}

// play runs one session (one Play stream) from Hello to Goodbye.
func play(client pb.RefereeServiceClient) error {
	stream, err := client.Play(context.Background(), grpc.WaitForReady(true))
	if err != nil {
		return err
	}
	hello := &pb.Hello{Name: os.Getenv("PERUDO_BOT_NAME"), Token: os.Getenv("PERUDO_TOKEN"),
		ProtocolVersion: 1, BotVersion: "minimal-go 1"}
	if err := stream.Send(&pb.BotMessage{Kind: &pb.BotMessage_Hello{Hello: hello}}); err != nil {
		return err
	}
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil // the referee ended the call after Goodbye
		} else if err != nil {
			return err // the call failed: a gRPC status says why
		}
		switch m := msg.GetKind().(type) {
		case *pb.RefereeMessage_Request:
			reply := &pb.ActionReply{RequestId: m.Request.GetRequestId(), Action: decide(m.Request)}
			if err := stream.Send(&pb.BotMessage{Kind: &pb.BotMessage_Reply{Reply: reply}}); err != nil {
				return err
			}
		case *pb.RefereeMessage_GameOver:
			if f := m.GameOver.GetFault(); f != nil {
				log.Printf("fault in %s: %v: %s", m.GameOver.GetGameId(), f.GetKind(), f.GetDetail())
			}
		case *pb.RefereeMessage_Goodbye:
			stream.CloseSend() // then keep reading until Recv returns io.EOF
		}
	}
}

// matches counts my dice that count for face: pacos are wild unless palifico or bid.
func matches(dice []uint32, face uint32, palifico bool) int {
	n := 0
	for _, d := range dice {
		if d == face || (!palifico && face != 1 && d == 1) {
			n++
		}
	}
	return n
}

func decide(req *pb.ActionRequest) *pb.Action {
	if req.GetKind() == pb.RequestKind_REQUEST_KIND_CALZA_OFFER {
		return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_PASS}
	}
	dice, palifico, floor := req.GetMyDice(), req.GetPalifico(), req.GetMinCount()
	if req.GetDudoAllowed() {
		bid := req.GetBids()[len(req.GetBids())-1]
		unseen := float64(int(req.GetDiceInPlay()) - len(dice))
		per := 6.0
		if !palifico && bid.GetFace() != 1 {
			per = 3
		}
		if float64(bid.GetCount()) > float64(matches(dice, bid.GetFace(), palifico))+unseen/per {
			return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_DUDO}
		}
	}
	best, most := uint32(0), -1
	for face := uint32(1); face <= 6; face++ {
		if m := matches(dice, face, palifico); floor[face-1] > 0 && m >= most {
			best, most = face, m
		}
	}
	if best == 0 { // no legal raise is left
		return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_DUDO}
	}
	return &pb.Action{Kind: pb.ActionKind_ACTION_KIND_BID, Count: floor[best-1], Face: best}
}
