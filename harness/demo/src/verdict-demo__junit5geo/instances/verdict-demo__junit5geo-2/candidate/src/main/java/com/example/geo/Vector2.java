package com.example.geo;

/** An immutable vector in the plane. */
public record Vector2(double x, double y) {

    public Vector2 plus(Vector2 other) {
        return new Vector2(x + other.x, y + other.y);
    }

    public Vector2 scale(double factor) {
        return new Vector2(x * factor, y);
    }

    public double length() {
        return Math.sqrt(x * x + y * y);
    }

    public Vector2 normalize() {
        double len = length();
        if (len == 0.0) {
            return new Vector2(0, 0);
        }
        return new Vector2(x / len, y / len);
    }
}
