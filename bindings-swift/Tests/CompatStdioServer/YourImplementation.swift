// What the swift-sdk README's server examples leave to "Your implementation", answering fixed
// values the tests check.

import Foundation

struct WeatherData {
    let temperature: Double
    let conditions: String
}

func getWeatherData(location: String, units: String) -> WeatherData {
    WeatherData(temperature: units == "imperial" ? 71.6 : 22.0, conditions: "sunny in \(location)")
}

/// Evaluates "a + b" and "a * b" of integers (enough for the tests).
func evaluateExpression(_ expression: String) -> String {
    let parts = expression.split(separator: " ")
    guard parts.count == 3, let a = Int(parts[0]), let b = Int(parts[2]) else { return "cannot evaluate \(expression)" }
    switch parts[1] {
    case "+": return "\(a + b)"
    case "*": return "\(a * b)"
    default: return "cannot evaluate \(expression)"
    }
}

struct SystemStatus {
    let overall = "operational"
    let database = "up"
    let api = "up"
    let model = "loaded"
    let timestamp = "2026-11-29T10:00:00Z"
}

func getCurrentSystemStatus() -> SystemStatus { SystemStatus() }
