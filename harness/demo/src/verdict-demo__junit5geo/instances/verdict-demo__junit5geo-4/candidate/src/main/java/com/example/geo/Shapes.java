package com.example.geo;

/** Areas of simple plane shapes. */
public final class Shapes {
    private Shapes() {
    }

    public static double circleArea(double radius) {
        if (radius <= 0) {
            throw new IllegalArgumentException("radius must be positive: " + radius);
        }
        return Math.PI * radius * radius;
    }

    public static double rectangleArea(double width, double height) {
        return width * height;
    }

    /** Area of a triangle from its three side lengths (Heron's formula). */
    public static double triangleArea(double a, double b, double c) {
        double s = a + b + c;
        return Math.sqrt(s * (s - a) * (s - b) * (s - c));
    }
}
