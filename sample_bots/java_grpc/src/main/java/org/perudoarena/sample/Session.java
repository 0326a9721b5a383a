package org.perudoarena.sample;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CountDownLatch;
import org.perudoarena.v1.ActionReply;
import org.perudoarena.v1.BotMessage;
import org.perudoarena.v1.GameOver;
import org.perudoarena.v1.Hello;
import org.perudoarena.v1.Pong;
import org.perudoarena.v1.RefereeMessage;
import org.perudoarena.v1.RefereeServiceGrpc;

/**
 * One Play stream, from Hello to Goodbye.
 *
 * <p>gRPC calls {@link #onNext} for one stream on one thread at a time, and the bot sends
 * only from there, so a stream's sends never overlap (a StreamObserver is not thread-safe);
 * the sessions themselves run side by side.
 */
final class Session implements StreamObserver<RefereeMessage> {
    private static final int PROTOCOL_VERSION = 1;

    private final int index;
    private final Bot.Config config;
    private final CountDownLatch ended;
    private StreamObserver<BotMessage> out;

    Session(int index, Bot.Config config, CountDownLatch ended) {
        this.index = index;
        this.config = config;
        this.ended = ended;
    }

    /** Opens the stream and says Hello; the referee's messages then arrive in onNext. */
    void open(RefereeServiceGrpc.RefereeServiceStub stub) {
        out = stub.play(this);
        out.onNext(BotMessage.newBuilder().setHello(Hello.newBuilder()
                .setName(config.name())
                .setToken(config.token())
                .setProtocolVersion(PROTOCOL_VERSION)
                .setBotVersion("java-grpc 1")
                // Pings are answered below: the referee times the link by them, and a league
                // with a lag allowance does not charge it to the bot's clock.
                .setAnswersPing(true))
                .build());
    }

    @Override
    public void onNext(RefereeMessage message) {
        switch (message.getKindCase()) {
            case REQUEST -> out.onNext(BotMessage.newBuilder().setReply(ActionReply.newBuilder()
                    .setRequestId(message.getRequest().getRequestId())
                    .setAction(Strategy.decide(message.getRequest())))
                    .build());
            // At once, before anything else: the time to the Pong is the link's.
            case PING -> out.onNext(BotMessage.newBuilder()
                    .setPong(Pong.newBuilder().setNonce(message.getPing().getNonce()))
                    .build());
            case GAME_OVER -> logGameOver(message.getGameOver());
            case GOODBYE -> out.onCompleted(); // the referee then ends the call: onCompleted
            default -> { } // Welcome, and whatever a later protocol adds
        }
    }

    @Override
    public void onError(Throwable error) {
        System.err.printf("java-grpc: session %d: %s%n", index, Status.fromThrowable(error));
        ended.countDown();
    }

    @Override
    public void onCompleted() {
        ended.countDown();
    }

    /** One stderr line per game, within the arena's cap on a bot's log. */
    private static void logGameOver(GameOver game) {
        int place = game.getOrderList().indexOf(game.getSeat()) + 1;
        StringBuilder line = new StringBuilder(String.format("java-grpc: game %s: place %d of %d",
                game.getGameId(), place, game.getPlayersCount()));
        if (game.hasFault()) {
            line.append(String.format(" (fault %s: %s)", game.getFault().getKind(), game.getFault().getDetail()));
        }
        System.err.println(line);
    }
}
