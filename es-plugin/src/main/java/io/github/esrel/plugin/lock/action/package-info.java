/**
 * The tree-lock actions (acquire, release, renew, list): their requests and responses on the wire and the transport
 * actions that turn them into the lock service's commands, authorized per target index by Elasticsearch security.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/tree-locks.md#rest-api">Tree locks: REST API</a>.
 */
@NullMarked
package io.github.esrel.plugin.lock.action;

import org.jspecify.annotations.NullMarked;
