import ChappieSDK

/// The app's one host tool: the model may call it to read the (made-up) weather of a city.
enum WeatherTool {
    static let tool = ChappieHostTool(
        name: "get_weather",
        description: "Returns today's weather for a city.",
        inputSchema: ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]]
    ) { call in
        guard let city = call.argumentsJSON?["city"]?.stringValue else {
            return ChappieToolResult(output: #"{"error":"missing city"}"#)
        }
        // A real app would ask a weather service; this one always has a sunny 21 °C.
        return ChappieToolResult(output: #"{"city":"\#(city)","celsius":21,"sky":"sunny"}"#)
    }
}
