package io.github.esrel.benchmarks; final class Placeholder {}
