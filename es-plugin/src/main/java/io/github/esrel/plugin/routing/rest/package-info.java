/**
 * The REST handler of {@code _routing_calc}.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/routing.md#rest-api">Routing: REST API</a>.
 */
@NullMarked
package io.github.esrel.plugin.routing.rest;

import org.jspecify.annotations.NullMarked;
