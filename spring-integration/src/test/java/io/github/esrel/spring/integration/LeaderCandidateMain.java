package io.github.esrel.spring.integration;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.VersionType;
import io.github.esrel.lock.TreeLocks;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * One candidate of {@link LeaderElectionIT}, in its own JVM: a {@link TreeLocks}, an {@link EsrelLockRegistry} with a
 * short lease and Spring Integration's {@link LockRegistryLeaderInitiator}. It prints {@code GRANTED <token>} and
 * {@code REVOKED <token>}; while leader it writes a heartbeat document fenced by its token (external version,
 * {@code external_gte} so that the same leader can write again), printing {@code WRITE-OK <token>} once per token and
 * {@code WRITE-REFUSED <token>} on a 409. On revocation it makes one more write with the revoked token, as a write
 * in flight when the lease was lost would, to show that the fence refuses it.
 *
 * <p>Arguments: the node's HTTP URI, the index, the candidate's id, the lease in milliseconds.
 */
public final class LeaderCandidateMain {

    static final long HEARTBEAT_MILLIS = 500;
    static final long BUSY_WAIT_MILLIS = 200;

    private static volatile long leaderToken = -1;
    private static volatile long lastWritten = -1;

    private LeaderCandidateMain() {}

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        String index = args[1];
        String id = args[2];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[3]));
        ElasticsearchClient client = CandidateClient.create(uri);
        TreeLocks treeLocks = TreeLocks.of(t -> t.client(client).index(index).owner(id));
        EsrelLockRegistry registry =
                EsrelLockRegistry.of(b -> b.treeLocks(treeLocks).ttl(ttl).prefix("/leaders"));
        EsrelLock lock = registry.obtain("leader");
        Candidate candidate = new Candidate() {
            @Override
            public String getRole() {
                return "leader";
            }

            @Override
            public String getId() {
                return id;
            }

            @Override
            public void onGranted(Context ctx) {
                long token = lock.token(); // on the initiator's thread, which holds the lock
                leaderToken = token;
                say("GRANTED " + token);
            }

            @Override
            public void onRevoked(Context ctx) {
                long token = leaderToken;
                leaderToken = -1;
                say("REVOKED " + token);
                if (token > 0) {
                    write(client, index, id, token);
                }
            }
        };
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(HEARTBEAT_MILLIS);
        initiator.setBusyWaitMillis(BUSY_WAIT_MILLIS);
        initiator.start();
        say("STARTED " + ProcessHandle.current().pid());
        while (true) {
            long token = leaderToken;
            if (token > 0) {
                write(client, index, id, token);
            }
            Thread.sleep(200);
        }
    }

    static void write(ElasticsearchClient client, String index, String id, long token) {
        try {
            client.index(i -> i.index(index)
                    .id("heartbeat")
                    .version(token)
                    .versionType(VersionType.ExternalGte)
                    .document(Map.of("leader", id, "token", token)));
            if (lastWritten != token) {
                lastWritten = token;
                say("WRITE-OK " + token);
            }
        } catch (Exception e) {
            if (conflict(e)) {
                say("WRITE-REFUSED " + token);
            } else {
                say("WRITE-FAILED " + token + " "
                        + e.toString().lines().findFirst().orElse(""));
            }
        }
    }

    /**
     * A 409: the 9.x client says so with an {@link ElasticsearchException}, the 8.x one (on a version conflict of
     * an index request) with the low-level client's ResponseException as the cause.
     */
    static boolean conflict(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ElasticsearchException ee && ee.status() == 409) {
                return true;
            }
            if (String.valueOf(t.getMessage()).contains("version_conflict_engine_exception")) {
                return true;
            }
        }
        return false;
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
