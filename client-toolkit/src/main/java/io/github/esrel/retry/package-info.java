/**
 * Retrying: {@link io.github.esrel.retry.RetryPolicy} (attempts, a deadline, which failures to retry) and the one
 * interval shape every esrel capability backs off with, {@link io.github.esrel.retry.Backoff} (fixed, exponential,
 * jittered). {@link io.github.esrel.retry.Failures} classifies failures by their Elasticsearch status.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/optimistic-concurrency.md#retries">Optimistic concurrency: retries</a>.
 */
@NullMarked
package io.github.esrel.retry;

import org.jspecify.annotations.NullMarked;
