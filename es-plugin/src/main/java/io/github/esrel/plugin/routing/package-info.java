/**
 * The routing functions Elasticsearch uses and their parameters (legacy and modulo, partition offsets, the batch
 * warnings), free of any request type.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/routing.md">Routing calculator and duplicate ids</a>.
 */
@NullMarked
package io.github.esrel.plugin.routing;

import org.jspecify.annotations.NullMarked;
