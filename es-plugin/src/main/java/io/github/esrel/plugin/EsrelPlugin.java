package io.github.esrel.plugin;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
public class EsrelPlugin extends Plugin implements ActionPlugin {}
