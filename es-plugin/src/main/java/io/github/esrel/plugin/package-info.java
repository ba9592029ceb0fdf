/**
 * The esrel Elasticsearch plugin: {@link io.github.esrel.plugin.EsrelPlugin} wires the routing calculator
 * ({@code _routing_calc}) and tree locks ({@code _treelock}) into the node: their actions, REST handlers, settings and
 * the lock index. Its API is the REST API; these classes are the plugin's inside.
 *
 * <p>Guide: <a href="https://github.com/esrel/esrel/blob/main/docs/installing-the-plugin.md">Installing the plugin</a>.
 */
@NullMarked
package io.github.esrel.plugin;

import org.jspecify.annotations.NullMarked;
