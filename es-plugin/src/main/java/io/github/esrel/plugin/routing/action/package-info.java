/**
 * The {@code _routing_calc} action: its requests and response on the wire, the transport action, and the calculator
 * that answers them with the server's own {@code IndexRouting} for real indices and the functions for hypothetical ones.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/routing.md#rest-api">Routing: REST API</a>.
 */
@NullMarked
package io.github.esrel.plugin.routing.action;

import org.jspecify.annotations.NullMarked;
