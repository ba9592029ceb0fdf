package io.github.esrel.testenv; final class Placeholder {}
