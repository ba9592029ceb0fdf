package io.github.esrel.routing; final class Placeholder {}
