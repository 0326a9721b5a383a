package org.perudoarena.sample;

import io.grpc.ChannelCredentials;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import java.io.File;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.perudoarena.v1.RefereeServiceGrpc;

/**
 * java-grpc, a sample Perudo Arena bot: warms its JVM, dials the referee once, and plays
 * PERUDO_SESSIONS sessions at once over that one connection, each a {@link Session}.
 *
 * <p>Exits 0 when every session has ended, 1 when it cannot reach the referee or is
 * misconfigured.
 */
public final class Bot {
    /** The referee may still be starting when the arena launches the bot. */
    private static final long DIAL_SECONDS = 10;

    /** Made-up positions decided before dialling (see {@link WarmUp}). */
    private static final int WARM_UP_POSITIONS = 500;

    /** Netty's start-up notes (no hardware address in the sandbox, no keep-alive on a Unix
     * socket) are not the author's concern: only its errors reach the bot's log. Held here,
     * since java.util.logging forgets the level of a logger nobody holds. */
    private static final Logger NETTY = Logger.getLogger("io.grpc.netty.shaded.io.netty");

    private Bot() {}

    public static void main(String[] args) throws InterruptedException {
        NETTY.setLevel(Level.SEVERE);
        Config config;
        try {
            config = Config.read(args);
        } catch (IllegalArgumentException e) {
            System.err.println("java-grpc: " + e.getMessage());
            System.exit(1);
            return;
        }
        long start = System.nanoTime();
        WarmUp.run(WARM_UP_POSITIONS);
        System.err.printf("java-grpc: warmed up on %d positions in %d ms%n",
                WARM_UP_POSITIONS, (System.nanoTime() - start) / 1_000_000);

        ManagedChannel channel;
        try {
            channel = dial(config);
        } catch (IOException e) {
            System.err.println("java-grpc: cannot reach the referee at " + config.address() + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        RefereeServiceGrpc.RefereeServiceStub stub = RefereeServiceGrpc.newStub(channel).withWaitForReady();
        CountDownLatch ended = new CountDownLatch(config.sessions());
        for (int i = 0; i < config.sessions(); i++) {
            new Session(i, config, ended).open(stub);
        }
        ended.await();
        channel.shutdown().awaitTermination(5, TimeUnit.SECONDS);
        System.exit(0);
    }

    /** The one connection every session shares, ready, or why not within DIAL_SECONDS. */
    private static ManagedChannel dial(Config config) throws IOException {
        ChannelCredentials credentials = InsecureChannelCredentials.create();
        if (config.caFile() != null) {
            credentials = TlsChannelCredentials.newBuilder().trustManager(new File(config.caFile())).build();
        } else if (config.tls()) {
            credentials = TlsChannelCredentials.create();
        }
        ManagedChannelBuilder<?> builder = Grpc.newChannelBuilder(config.address(), credentials);
        if (config.address().startsWith("unix:") && config.tls()) {
            builder.overrideAuthority("localhost"); // a league server's socket is `localhost`
        }
        ManagedChannel channel = builder.build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DIAL_SECONDS);
        ConnectivityState state = channel.getState(true);
        while (state != ConnectivityState.READY) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                channel.shutdownNow();
                throw new IOException("not ready after " + DIAL_SECONDS + " s (last state " + state + ")");
            }
            CountDownLatch changed = new CountDownLatch(1);
            channel.notifyWhenStateChanged(state, changed::countDown);
            try {
                changed.await(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while dialling", e);
            }
            state = channel.getState(true);
        }
        return channel;
    }

    /** What the arena tells the bot, from the environment; flags override, to run it by hand. */
    record Config(String address, String name, String token, int sessions, boolean tls, String caFile) {
        static Config read(String[] args) {
            String address = System.getenv("PERUDO_ADDRESS");
            String name = System.getenv("PERUDO_BOT_NAME");
            String token = System.getenv("PERUDO_TOKEN");
            String sessions = System.getenv("PERUDO_SESSIONS");
            String tls = System.getenv("PERUDO_TLS");
            String caFile = System.getenv("PERUDO_CA_FILE");
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                if (flag.equals("--tls")) {
                    tls = "1";
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown flag or missing value: " + flag
                            + " (flags: --address --name --token --sessions --tls --ca-file)");
                }
                String value = args[++i];
                switch (flag) {
                    case "--address" -> address = value;
                    case "--name" -> name = value;
                    case "--token" -> token = value;
                    case "--sessions" -> sessions = value;
                    case "--ca-file" -> caFile = value;
                    default -> throw new IllegalArgumentException("unknown flag " + flag
                            + " (flags: --address --name --token --sessions --tls --ca-file)");
                }
            }
            if (address == null || address.isEmpty()) {
                throw new IllegalArgumentException("no referee address: set PERUDO_ADDRESS or --address");
            }
            int count;
            try {
                count = sessions == null || sessions.isEmpty() ? 1 : Integer.parseInt(sessions);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("PERUDO_SESSIONS=" + sessions + " is not a number");
            }
            if (count < 1) {
                throw new IllegalArgumentException("sessions must be at least 1, got " + count);
            }
            boolean secure = (tls != null && !tls.isEmpty() && !tls.equals("0"))
                    || (caFile != null && !caFile.isEmpty());
            return new Config(address, name == null ? "" : name, token == null ? "" : token, count, secure,
                    caFile == null || caFile.isEmpty() ? null : caFile);
        }
    }
}
