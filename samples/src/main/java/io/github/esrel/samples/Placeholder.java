package io.github.esrel.samples; final class Placeholder {}
