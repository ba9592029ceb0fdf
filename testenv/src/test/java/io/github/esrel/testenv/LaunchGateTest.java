package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class LaunchGateTest {

    @Test
    void shouldRefuseLaunchesOnceClosed() {
        LaunchGate gate = new LaunchGate();
        AtomicBoolean launched = new AtomicBoolean();
        gate.launch("node-0 of c", () -> launched.set(true));
        assertThat(launched).isTrue();

        gate.close();
        launched.set(false);
        assertThatThrownBy(() -> gate.launch("node-1 of c", () -> launched.set(true)))
                .isInstanceOf(EsClusterException.class)
                .hasMessageContaining("node-1 of c")
                .hasMessageContaining("shutting down");
        assertThat(launched).isFalse();
    }

    @Test
    void shouldCloseOnlyOnceTheLaunchUnderWayIsDone() throws Exception {
        LaunchGate gate = new LaunchGate();
        CountDownLatch inLaunch = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean launchDone = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> launching = threads.submit(() -> gate.launch("node-0 of c", () -> {
                inLaunch.countDown();
                await(release);
                launchDone.set(true);
            }));
            assertThat(inLaunch.await(10, TimeUnit.SECONDS)).isTrue();
            Future<Boolean> closing = threads.submit(() -> {
                gate.close();
                return launchDone.get();
            });
            Thread.sleep(200); // long enough for a close that would not wait to return
            assertThat(closing.isDone()).as("close waits for the launch").isFalse();
            release.countDown();
            assertThat(closing.get(10, TimeUnit.SECONDS))
                    .as("the launch was done when close returned")
                    .isTrue();
            launching.get(10, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
