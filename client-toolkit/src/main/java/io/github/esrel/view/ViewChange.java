package io.github.esrel.view;

/**
 * A source write made through a view, and the rebuild that followed it.
 *
 * @param result what the write returned
 * @param rebuild what the rebuild did
 * @param intentId the intent recorded before the write; cleared when the rebuild completed, left for
 *     {@link MaterializedView#repair()} otherwise
 * @param intentCleared whether the intent was cleared
 * @param <R> the type of the write's result (an index, update or delete response, say)
 */
public record ViewChange<R>(R result, RebuildResult rebuild, String intentId, boolean intentCleared) {}
