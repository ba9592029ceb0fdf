package io.github.esrel.plugin.lock;

import static io.github.esrel.plugin.lock.grant.LockMode.EXCLUSIVE;
import static io.github.esrel.plugin.lock.grant.LockMode.SHARED;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.plugin.lock.commit.InMemoryStore;
import io.github.esrel.plugin.lock.commit.ManualScheduler;
import io.github.esrel.plugin.lock.commit.VersionedStore;
import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Caller;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantPage;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.TreePath;
import io.github.esrel.plugin.lock.store.LockState;
import io.github.esrel.plugin.lock.store.TreeLockIndex;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.elasticsearch.ElasticsearchSecurityException;
import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.ResourceNotFoundException;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.common.logging.LogConfigurator;
import org.elasticsearch.common.settings.AbstractScopedSettings;
import org.elasticsearch.common.settings.Setting;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.core.Nullable;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.tasks.TaskCancelledException;
import org.junit.jupiter.api.Test;

/**
 * The lock operations of {@link TreeLockService} on an in-memory lock index, with virtual time: the clock
 * leases are measured with moves only when the test moves it, and waits end on its timers.
 */
class TreeLockServiceTest {

    private static final String NS = "fs";

    static {
        // Elasticsearch's exceptions log when their classes load: that needs its logging set up (as in TestIndices).
        LogConfigurator.configureESLogging();
    }

    private final ThreadContext threadContext = new ThreadContext(Settings.EMPTY);
    private final ManualScheduler scheduler = new ManualScheduler(threadContext);
    private final InMemoryStore<LockState> store = new InMemoryStore<>(LockState.empty(), scheduler::execute);
    private TreeLockService service = service(Settings.EMPTY);

    /** The cluster settings of the tree locks alone: {@code ClusterSettings} would load every setting of the server. */
    private static final class LockSettings extends AbstractScopedSettings {
        LockSettings(Settings settings) {
            super(settings, Set.copyOf(TreeLockSettings.all()), Setting.Property.NodeScope);
        }
    }

    private LockSettings clusterSettings;

    private TreeLockService service(Settings settings) {
        return service(settings, store);
    }

    private TreeLockService service(Settings settings, VersionedStore<LockState> lockIndex) {
        clusterSettings = new LockSettings(settings);
        return new TreeLockService(
                threadContext, lockIndex, scheduler, new TreeLockLimits(settings, clusterSettings), scheduler.clock());
    }

    /** The answer a listener got, if any yet. */
    private static final class Answer<T> implements ActionListener<T> {
        final List<Object> answers = new ArrayList<>();

        @Override
        public void onResponse(T response) {
            answers.add(response == null ? "null" : response);
        }

        @Override
        public void onFailure(Exception e) {
            answers.add(e);
        }

        boolean answered() {
            return answers.isEmpty() == false;
        }

        @SuppressWarnings("unchecked")
        T value() {
            assertThat(answers).hasSize(1);
            assertThat(answers.get(0)).isNotInstanceOf(Exception.class);
            return answers.get(0).equals("null") ? null : (T) answers.get(0);
        }

        Exception failure() {
            assertThat(answers).hasSize(1);
            assertThat(answers.get(0)).isInstanceOf(Exception.class);
            return (Exception) answers.get(0);
        }
    }

    /** A cancellation the test triggers, as Elasticsearch does when the HTTP client goes away. */
    private static final class TestCancellation implements Cancellation {
        private final List<Runnable> listeners = new ArrayList<>();
        private boolean cancelled;

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public void onCancel(Runnable listener) {
            if (cancelled) {
                listener.run();
            } else {
                listeners.add(listener);
            }
        }

        void cancel() {
            cancelled = true;
            listeners.forEach(Runnable::run);
        }
    }

    private Answer<Acquisition> startAcquire(
            String path,
            LockMode mode,
            String owner,
            @Nullable TimeValue ttl,
            @Nullable TimeValue wait,
            Cancellation cancellation) {
        Answer<Acquisition> answer = new Answer<>();
        service.acquire(new AcquireCommand(NS, path, mode, owner, ttl, wait, null, null), cancellation, answer);
        scheduler.runReady();
        return answer;
    }

    /** Starts an acquire that waits up to {@code wait}, with the default lease; it may not be answered yet. */
    private Answer<Acquisition> startWaiting(String path, LockMode mode, String owner, TimeValue wait) {
        return startAcquire(path, mode, owner, null, wait, Cancellation.NONE);
    }

    private Acquisition acquire(String path, LockMode mode, String owner, @Nullable TimeValue ttl) {
        return startAcquire(path, mode, owner, ttl, null, Cancellation.NONE).value();
    }

    private Grant grant(String path, LockMode mode, String owner) {
        Acquisition acquisition = acquire(path, mode, owner, null);
        assertThat(acquisition.acquired()).as("%s %s for %s", mode, path, owner).isTrue();
        return acquisition.grant();
    }

    private List<Grant> refusal(String path, LockMode mode, String owner) {
        Acquisition acquisition = acquire(path, mode, owner, null);
        assertThat(acquisition.acquired()).as("%s %s for %s", mode, path, owner).isFalse();
        return acquisition.conflicts();
    }

    private Answer<Void> release(Grant g) {
        Answer<Void> answer = new Answer<>();
        service.release(new GrantRef(NS, g.path(), g.owner(), g.token()), Caller.of(null), answer);
        scheduler.runReady();
        return answer;
    }

    private Answer<Grant> renew(Grant g, @Nullable TimeValue ttl) {
        Answer<Grant> answer = new Answer<>();
        service.renew(new GrantRef(NS, g.path(), g.owner(), g.token()), Caller.of(null), ttl, answer);
        scheduler.runReady();
        return answer;
    }

    private List<Grant> list(String namespace, String prefix) {
        Answer<GrantPage> answer = new Answer<>();
        service.list(namespace, prefix, null, Integer.MAX_VALUE, answer);
        scheduler.runReady();
        return answer.value().grants();
    }

    @Test
    void shouldRefuseEveryLockBelowAnExclusiveLockAndNameIt() {
        Grant dir = grant("/a", EXCLUSIVE, "w1");

        assertThat(refusal("/a/b/c.txt", SHARED, "w2")).containsExactly(dir);
        assertThat(refusal("/a", SHARED, "w2")).containsExactly(dir);
        assertThat(grant("/", SHARED, "w2").path())
                .as("the grant holds / shared only")
                .isEqualTo("/");
    }

    @Test
    void shouldRefuseAnExclusiveLockAboveAnyLockAndLetSharedAncestorsShare() {
        Grant file = grant("/a/b/c.txt", SHARED, "w1");

        assertThat(refusal("/a", EXCLUSIVE, "w2")).containsExactly(file);
        assertThat(refusal("/", EXCLUSIVE, "w2")).containsExactly(file);
        assertThat(grant("/a", SHARED, "w2").token()).isGreaterThan(file.token());
        assertThat(grant("/a/b/other.txt", EXCLUSIVE, "w2").path()).isEqualTo("/a/b/other.txt");
        assertThat(refusal("/a/b/c.txt", EXCLUSIVE, "w3")).containsExactly(file);
    }

    @Test
    void shouldLetSharedLocksShareAPathAndKeepNamespacesApart() {
        Grant a = grant("/a", SHARED, "w1");
        Grant b = grant("/a", SHARED, "w2");
        assertThat(refusal("/a", EXCLUSIVE, "w3")).containsExactly(a, b);

        Answer<Acquisition> other = new Answer<>();
        service.acquire(
                new AcquireCommand("photos", "/", EXCLUSIVE, "w3", null, null, null, null), Cancellation.NONE, other);
        scheduler.runReady();
        assertThat(other.value().acquired()).isTrue();
    }

    @Test
    void shouldIssueStrictlyIncreasingTokensEvenWhenTheClockGoesBack() {
        Random random = new Random(7);
        long last = 0;
        List<Grant> held = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            if (random.nextInt(10) == 0) {
                scheduler.shiftClock(-random.nextInt(3_600_000));
            }
            if (held.isEmpty() == false && random.nextBoolean()) {
                assertThat(release(held.remove(random.nextInt(held.size()))).value())
                        .isNull();
            } else {
                Grant g = grant("/f" + i, EXCLUSIVE, "w");
                assertThat(g.token()).isGreaterThan(last);
                last = g.token();
                held.add(g);
            }
        }
    }

    @Test
    void shouldGiveAcquiresDecidedTogetherIncreasingTokensInTheOrderTheyCame() {
        List<Answer<Acquisition>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Answer<Acquisition> answer = new Answer<>();
            service.acquire(
                    new AcquireCommand(NS, "/f" + i, EXCLUSIVE, "w", null, null, null, null),
                    Cancellation.NONE,
                    answer);
            answers.add(answer);
        }
        scheduler.runReady();

        assertThat(store.writes(NS)).isEqualTo(1);
        assertThat(answers.stream().map(a -> a.value().grant().token()).toList())
                .isSorted()
                .doesNotHaveDuplicates();
    }

    @Test
    void shouldFreeThePathWhenTheLeaseEndsAndRefuseTheLateHolder() {
        Grant first =
                acquire("/a", EXCLUSIVE, "w1", TimeValue.timeValueSeconds(10)).grant();
        assertThat(first.expiresAtMillis()).isEqualTo(ManualScheduler.EPOCH_MILLIS + 10_000);

        scheduler.advance(9_999);
        assertThat(refusal("/a/b", SHARED, "w2")).containsExactly(first);
        scheduler.advance(1);
        Grant second = grant("/a/b", SHARED, "w2");

        Exception late = release(first).failure();
        assertThat(late)
                .isInstanceOf(ResourceNotFoundException.class)
                .hasMessage("no live lock on [/a] in [fs]: owner [w1] with token [" + first.token()
                        + "] never held it, released it, or its lease expired");
        assertThat(renew(first, null).failure()).isInstanceOf(ResourceNotFoundException.class);
        assertThat(list(NS, TreePath.ROOT)).containsExactly(second);
    }

    @Test
    void shouldExtendOrShortenALeaseOnRenewal() {
        Grant g = acquire("/a", EXCLUSIVE, "w1", TimeValue.timeValueSeconds(10)).grant();
        scheduler.advance(5_000);

        Grant renewed = renew(g, TimeValue.timeValueSeconds(30)).value();
        assertThat(renewed.expiresAtMillis()).isEqualTo(ManualScheduler.EPOCH_MILLIS + 35_000);
        assertThat(renewed.token()).isEqualTo(g.token());

        scheduler.advance(20_000);
        assertThat(refusal("/a", SHARED, "w2")).containsExactly(renewed);
        Grant shortened = renew(g, TimeValue.timeValueSeconds(1)).value();
        assertThat(shortened.expiresAtMillis()).isEqualTo(ManualScheduler.EPOCH_MILLIS + 26_000);
        assertThat(renew(g, null).value().expiresAtMillis())
                .as("the default lease")
                .isEqualTo(ManualScheduler.EPOCH_MILLIS + 85_000);
    }

    @Test
    void shouldRefuseAReleaseOrRenewalByAnotherOwnerOrTokenWithAConflict() {
        Grant g = grant("/x/y", EXCLUSIVE, "w1");
        Grant wrongOwner = new Grant(g.path(), g.mode(), "w2", g.token(), g.expiresAtMillis(), 0);
        Grant wrongToken = new Grant(g.path(), g.mode(), "w1", g.token() + 1, g.expiresAtMillis(), 0);

        Exception e = release(wrongOwner).failure();
        assertThat(e)
                .isInstanceOf(ElasticsearchStatusException.class)
                .hasMessage("the lock on [/x/y] in [fs] is held by owner [w1] token [" + g.token()
                        + "], not by owner [w2] with token [" + g.token() + "]");
        assertThat(((ElasticsearchStatusException) e).status()).isEqualTo(RestStatus.CONFLICT);
        assertThat(((ElasticsearchStatusException) renew(wrongToken, null).failure()).status())
                .isEqualTo(RestStatus.CONFLICT);
        assertThat(list(NS, TreePath.ROOT)).containsExactly(g);
        assertThat(release(g).value()).isNull();
        assertThat(list(NS, TreePath.ROOT)).isEmpty();
    }

    @Test
    void shouldRefuseLeasesAndWaitsOverTheMaximumAndCapTheDefaultLease() {
        service = service(Settings.builder()
                .put("esrel.treelock.max_ttl", "30s")
                .put("esrel.treelock.max_wait", "5s")
                .build());

        assertThat(startAcquire("/a", EXCLUSIVE, "w", TimeValue.timeValueMinutes(2), null, Cancellation.NONE)
                        .failure())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "ttl [2m] is longer than the maximum [30s] (setting [esrel.treelock.max_ttl]); renew a shorter lease instead");
        assertThat(startWaiting("/a", EXCLUSIVE, "w", TimeValue.timeValueSeconds(6))
                        .failure())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "wait [6s] is longer than the maximum [5s] (setting [esrel.treelock.max_wait]); retry instead");
        assertThat(store.writeAttempts()).as("nothing was tried").isZero();

        Grant g = grant("/a", EXCLUSIVE, "w");
        assertThat(g.expiresAtMillis())
                .as("60 s capped to the maximum")
                .isEqualTo(ManualScheduler.EPOCH_MILLIS + 30_000);
        assertThat(renew(g, TimeValue.timeValueSeconds(31)).failure()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldFollowUpdatesOfTheDynamicSettings() {
        grant("/a", SHARED, "w1");
        clusterSettings.applySettings(Settings.builder()
                .put("esrel.treelock.max_locks_per_index", 1)
                .put("esrel.treelock.max_ttl", "5s")
                .build());

        assertThat(startAcquire("/b", SHARED, "w2", null, null, Cancellation.NONE)
                        .failure())
                .hasMessageContaining("is full");
        assertThat(startAcquire("/b", SHARED, "w2", TimeValue.timeValueSeconds(6), null, Cancellation.NONE)
                        .failure())
                .hasMessageContaining("maximum [5s]");
    }

    @Test
    void shouldGrantAWaitingAcquireAsSoonAsTheHolderReleasesOnThisNode() {
        Grant holder = grant("/a", EXCLUSIVE, "w1");
        Answer<Acquisition> waiting = startWaiting("/a/b", EXCLUSIVE, "w2", TimeValue.timeValueSeconds(5));
        scheduler.advance(3);
        assertThat(waiting.answered()).isFalse();

        release(holder);

        assertThat(waiting.value().acquired()).isTrue();
        assertThat(scheduler.elapsedMillis())
                .as("woken by the release, not by a timer")
                .isEqualTo(3);
        assertThat(waiting.value().grant().token()).isGreaterThan(holder.token());
    }

    @Test
    void shouldGrantAWaitingAcquireRightAfterTheConflictingLeaseEnds() {
        acquire("/a", EXCLUSIVE, "w1", TimeValue.timeValueSeconds(2));
        Answer<Acquisition> waiting = startWaiting("/a", SHARED, "w2", TimeValue.timeValueSeconds(5));

        scheduler.advance(1_999);
        assertThat(waiting.answered()).isFalse();
        scheduler.advance(2);

        assertThat(waiting.value().acquired()).isTrue();
        assertThat(waiting.value().grant().expiresAtMillis())
                .isBetween(ManualScheduler.EPOCH_MILLIS + 62_000, ManualScheduler.EPOCH_MILLIS + 62_001);
    }

    @Test
    void shouldSeeAReleaseOnAnotherNodeByPollingWithinMaxPoll() {
        Grant holder = grant("/a", EXCLUSIVE, "w1");
        Answer<Acquisition> waiting = startWaiting("/a", EXCLUSIVE, "w2", TimeValue.timeValueSeconds(30));
        scheduler.advance(5_000);

        // Another node removes the grant: nothing tells this node.
        store.writeDirectly(
                NS,
                table -> table.release(
                                holder.path(),
                                holder.owner(),
                                holder.token(),
                                0,
                                Caller.of(null),
                                ManualScheduler.EPOCH_MILLIS + 5_000,
                                false)
                        .state());
        scheduler.advance(Acquirer.MAX_POLL_MILLIS);

        assertThat(waiting.value().acquired()).isTrue();
    }

    @Test
    void shouldAnswerWithTheConflictsWhenTheWaitRunsOutHoldingNothing() {
        Grant holder = grant("/a", EXCLUSIVE, "w1");
        Answer<Acquisition> waiting = startWaiting("/a/b", SHARED, "w2", TimeValue.timeValueSeconds(1));

        scheduler.advance(999);
        assertThat(waiting.answered()).isFalse();
        scheduler.advance(2);

        assertThat(waiting.value().conflicts()).containsExactly(holder);
        assertThat(list(NS, TreePath.ROOT)).containsExactly(holder);
        assertThat(scheduler.hasLiveTimers()).isFalse();
    }

    @Test
    void shouldStopWaitingAtOnceAndTakeNothingWhenTheCallerGoesAway() {
        Grant holder = grant("/a", EXCLUSIVE, "w1");
        TestCancellation cancellation = new TestCancellation();
        Answer<Acquisition> waiting =
                startAcquire("/a", EXCLUSIVE, "w2", null, TimeValue.timeValueMinutes(1), cancellation);
        scheduler.advance(100);

        cancellation.cancel();
        scheduler.runReady();

        assertThat(waiting.failure()).isInstanceOf(TaskCancelledException.class).hasMessage("the client went away");
        assertThat(scheduler.elapsedMillis()).isEqualTo(100);
        assertThat(scheduler.hasLiveTimers()).isFalse();
        release(holder);
        assertThat(list(NS, TreePath.ROOT)).isEmpty();
        assertThat(waiting.answers).hasSize(1);
    }

    @Test
    void shouldNotStartAnAcquireWhoseCallerIsAlreadyGone() {
        TestCancellation cancellation = new TestCancellation();
        cancellation.cancel();

        assertThat(startAcquire("/a", EXCLUSIVE, "w", null, null, cancellation).failure())
                .isInstanceOf(TaskCancelledException.class);
        assertThat(store.writeAttempts()).isZero();
    }

    @Test
    void shouldAnswerTooManyRequestsWhenTheTableIsFullAfterTheWait() {
        service = service(
                Settings.builder().put("esrel.treelock.max_locks_per_index", 2).build());
        grant("/a", SHARED, "w1");
        grant("/b", SHARED, "w2");

        Answer<Acquisition> full = startWaiting("/c", SHARED, "w3", TimeValue.timeValueMillis(200));
        assertThat(full.answered()).as("a full table is waited out too").isFalse();
        scheduler.advance(201);

        assertThat(full.failure())
                .isInstanceOf(ElasticsearchStatusException.class)
                .hasMessageContaining("the lock table of [fs] is full");
        assertThat(((ElasticsearchStatusException) full.failure()).status()).isEqualTo(RestStatus.TOO_MANY_REQUESTS);
    }

    @Test
    void shouldListTheLiveGrantsAtOrBelowAPathByPathThenToken() {
        Grant ab2 = grant("/a/b", SHARED, "w2");
        acquire("/a/gone", EXCLUSIVE, "w0", TimeValue.timeValueSeconds(1));
        Grant a = grant("/a", SHARED, "w1");
        Grant ab1 = grant("/a/b", SHARED, "w3");
        Grant c = grant("/c", EXCLUSIVE, "w4");
        grant("/ab", EXCLUSIVE, "w5");
        scheduler.advance(1_000);

        assertThat(list(NS, "/a")).containsExactly(a, ab2, ab1);
        assertThat(list(NS, TreePath.ROOT)).hasSize(5).startsWith(a).endsWith(c);
        assertThat(list("never-locked", TreePath.ROOT)).isEmpty();
        assertThat(store.writes("never-locked")).as("listing writes nothing").isZero();
    }

    @Test
    void shouldReportAReleaseWhoseEarlierWriteWasAppliedAsReleased() {
        Grant g = grant("/a", EXCLUSIVE, "w1");
        store.failNextWrite(new InMemoryStore.Unavailable("acknowledgement lost"), true);

        Answer<Void> released = new Answer<>();
        service.release(new GrantRef(NS, g.path(), g.owner(), g.token()), Caller.of(null), released);
        scheduler.runUntilIdle(10_000);

        assertThat(released.value()).isNull();
        assertThat(list(NS, TreePath.ROOT)).isEmpty();
    }

    @Test
    void shouldFindItsOwnGrantWhenARetriedAcquireWasAppliedBefore() {
        store.failNextWrite(new InMemoryStore.Unavailable("acknowledgement lost"), true);

        Answer<Acquisition> answer = new Answer<>();
        service.acquire(
                new AcquireCommand(NS, "/a", EXCLUSIVE, "w1", null, null, null, null), Cancellation.NONE, answer);
        scheduler.runUntilIdle(10_000);

        Grant g = answer.value().grant();
        assertThat(list(NS, TreePath.ROOT)).containsExactly(g);
        assertThat(store.writes(NS)).isEqualTo(1);
    }

    /**
     * A client's acquire and release whose answers were lost, sent again to another node with the same grant id:
     * the acquire is answered with the grant the first copy got, the release with released; a copy of the acquire
     * that comes after the release grants nothing, and a release by grant id alone spends an id that got nothing.
     */
    @Test
    void shouldRecogniseAnAcquireAndAReleaseSentAgainToAnotherNodeByTheirGrantId() {
        TreeLockService otherNode = service(Settings.EMPTY);
        String id = "0f8c0b3e-6d4f-4f27-9a55-1b2c3d4e5f60";
        AcquireCommand command = new AcquireCommand(NS, "/a/b", EXCLUSIVE, "w1", null, null, null, id);
        Answer<Acquisition> first = new Answer<>();
        service.acquire(command, Cancellation.NONE, first);
        scheduler.runReady();
        scheduler.advance(700);
        Answer<Acquisition> again = new Answer<>();
        otherNode.acquire(command, Cancellation.NONE, again);
        scheduler.runReady();
        Grant g = first.value().grant();
        assertThat(again.value().grant()).as("same token, same lease").isEqualTo(g);
        assertThat(list(NS, TreePath.ROOT)).containsExactly(g);

        GrantRef ref = new GrantRef(NS, g.path(), g.owner(), g.token());
        for (TreeLockService node : List.of(service, otherNode, service)) {
            Answer<Void> released = new Answer<>();
            node.release(ref, id, Caller.of(null), released);
            scheduler.runReady();
            assertThat(released.value()).as("released, every time it is sent").isNull();
        }
        assertThat(list(NS, TreePath.ROOT)).isEmpty();
        assertThat(release(g).failure()).as("without the grant id: gone").isInstanceOf(ResourceNotFoundException.class);

        Answer<Acquisition> late = new Answer<>();
        otherNode.acquire(command, Cancellation.NONE, late);
        scheduler.runReady();
        assertThat(late.failure())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("grant_id [" + id + "] was released");
        assertThat(list(NS, TreePath.ROOT)).isEmpty();

        String unknown = "acquire-whose-outcome-stayed-unknown";
        Answer<Void> spent = new Answer<>();
        otherNode.release(new GrantRef(NS, "/c", "w1", 0), unknown, Caller.of(null), spent);
        scheduler.runReady();
        assertThat(spent.value()).isNull();
        Answer<Acquisition> tooLate = new Answer<>();
        service.acquire(
                new AcquireCommand(NS, "/c", EXCLUSIVE, "w1", null, null, null, unknown), Cancellation.NONE, tooLate);
        scheduler.runReady();
        assertThat(tooLate.failure()).isInstanceOf(IllegalArgumentException.class);
        assertThat(grant("/c", EXCLUSIVE, "w2").path())
                .as("nothing left behind")
                .isEqualTo("/c");
    }

    @Test
    void shouldGrantOnlyOneOfTwoConflictingAcquiresFromTwoNodes() {
        TreeLockService otherNode = service(Settings.EMPTY);
        Answer<Acquisition> here = new Answer<>();
        Answer<Acquisition> there = new Answer<>();
        service.acquire(new AcquireCommand(NS, "/a", EXCLUSIVE, "w1", null, null, null, null), Cancellation.NONE, here);
        otherNode.acquire(
                new AcquireCommand(NS, "/a/b", SHARED, "w2", null, null, null, null), Cancellation.NONE, there);
        scheduler.runReady();

        assertThat(store.writeAttempts())
                .as("both wrote on the same read; one conflicted")
                .isEqualTo(2);
        assertThat(here.value().acquired()).isNotEqualTo(there.value().acquired());
        Grant winner =
                here.value().acquired() ? here.value().grant() : there.value().grant();
        assertThat(
                        here.value().acquired()
                                ? there.value().conflicts()
                                : here.value().conflicts())
                .containsExactly(winner);
        assertThat(list(NS, TreePath.ROOT)).containsExactly(winner);
    }

    @Test
    void shouldTouchTheLockIndexAsSystemAndAnswerInTheCallersContext() {
        List<String> originsAtRead = new ArrayList<>();
        List<String> headersAtRead = new ArrayList<>();
        InMemoryStore<LockState> watched = new InMemoryStore<>(LockState.empty(), scheduler::execute) {
            @Override
            public void read(String key, ActionListener<VersionedStore.Versioned<LockState>> listener) {
                originsAtRead.add(threadContext.getTransient(ThreadContext.ACTION_ORIGIN_TRANSIENT_NAME));
                headersAtRead.add(threadContext.getHeader("X-Caller"));
                super.read(key, listener);
            }
        };
        service = service(Settings.EMPTY, watched);
        AtomicReference<String> callerAtAnswer = new AtomicReference<>();
        Set<String> answered = new HashSet<>();
        ThreadContext.StoredContext testContext = threadContext.stashContext();
        threadContext.putHeader("X-Caller", "alice");
        service.acquire(
                new AcquireCommand(NS, "/a", EXCLUSIVE, "w1", null, null, null, null),
                Cancellation.NONE,
                ActionListener.wrap(
                        a -> {
                            callerAtAnswer.set(threadContext.getHeader("X-Caller"));
                            answered.add("acquire");
                        },
                        e -> {
                            throw new AssertionError(e);
                        }));
        service.list(
                NS, TreePath.ROOT, null, Integer.MAX_VALUE, ActionListener.wrap(page -> answered.add("list"), e -> {
                    throw new AssertionError(e);
                }));
        testContext.restore(); // the tasks handed over run in the contexts they were handed over in
        scheduler.runReady();

        assertThat(answered).containsExactlyInAnyOrder("acquire", "list");
        // The listing shares the acquire's read (group commit), or reads after it.
        assertThat(originsAtRead).isNotEmpty().containsOnly(TreeLockIndex.ORIGIN);
        assertThat(headersAtRead).containsOnlyNulls();
        assertThat(callerAtAnswer).hasValue("alice");
    }

    @Test
    void shouldRefuseABoundGrantToOtherUsersWith403NamingTheBinding() {
        AuthenticatedUser alice = new AuthenticatedUser("alice", "file1");
        Answer<Acquisition> acquired = new Answer<>();
        service.acquire(
                new AcquireCommand(NS, "/a", EXCLUSIVE, "w1", null, null, alice, null), Cancellation.NONE, acquired);
        scheduler.runReady();
        Grant g = acquired.value().grant();
        assertThat(g.boundTo()).isEqualTo(alice);
        GrantRef ref = new GrantRef(NS, g.path(), g.owner(), g.token());

        Answer<Void> byBob = new Answer<>();
        service.release(ref, Caller.of(new AuthenticatedUser("bob", "file1")), byBob);
        Answer<Grant> renewedByBob = new Answer<>();
        service.renew(ref, Caller.of(new AuthenticatedUser("bob", "file1")), null, renewedByBob);
        scheduler.runReady();
        for (Exception e : List.of(byBob.failure(), renewedByBob.failure())) {
            assertThat(e)
                    .isInstanceOf(ElasticsearchSecurityException.class)
                    .hasMessageContaining("bound to user [alice] of realm [file1]")
                    .hasMessageContaining(GrantBindings.OVERRIDE_ACTION);
            assertThat(((ElasticsearchSecurityException) e).status()).isEqualTo(RestStatus.FORBIDDEN);
            assertThat(GrantBindings.boundTo(e)).isEqualTo(alice);
        }
        assertThat(list(NS, "/")).containsExactly(g);

        Answer<Grant> renewedByAlice = new Answer<>();
        service.renew(ref, Caller.of(alice), null, renewedByAlice);
        scheduler.runReady();
        assertThat(renewedByAlice.value().boundTo()).isEqualTo(alice);
        Answer<Void> overridden = new Answer<>();
        service.release(ref, Caller.of(new AuthenticatedUser("root", "file1")).overriding(), overridden);
        scheduler.runReady();
        overridden.value();
        assertThat(list(NS, "/")).isEmpty();
    }
}
