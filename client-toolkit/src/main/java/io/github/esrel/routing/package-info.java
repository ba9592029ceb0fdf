/**
 * Where documents live: {@link io.github.esrel.routing.RoutingCalculator} computes in pure Java the shard Elasticsearch
 * puts a document on (both routing functions, partitioned, split and shrunk indices), {@link
 * io.github.esrel.routing.RoutingClient} builds it from the plugin or the cluster state, and {@link
 * io.github.esrel.routing.DuplicateIdScanner} finds the ids an index holds twice under two routing values.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/routing.md">Routing calculator and duplicate ids</a>.
 */
@NullMarked
package io.github.esrel.routing;

import org.jspecify.annotations.NullMarked;
