"""Class-based and function-based versions of a weather gadget (with timeouts)."""

import asyncio
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from llmist import ExecutionContext, Gadget, create_gadget, gadget, test_gadget


async def fetch_weather(city: str) -> dict[str, float]:
    await asyncio.sleep(0)  # stands in for an HTTP call
    return {"temp": 21.0}


class WeatherParams(BaseModel):
    city: Annotated[str, Field(min_length=1, description="City name")]
    units: Literal["celsius", "fahrenheit"] | None = None


class Weather(Gadget):
    description = "Get weather for a city"
    Params = WeatherParams
    timeout_s = 10  # optional timeout

    async def execute(self, params: WeatherParams, ctx: ExecutionContext) -> str:
        units = params.units or "celsius"
        data = await fetch_weather(params.city)
        return f"{params.city}: {data['temp']}°{'C' if units == 'celsius' else 'F'}"


class CityParams(BaseModel):
    city: str


async def weather_for(params: CityParams) -> str:
    data = await fetch_weather(params.city)
    return f"{params.city}: {data['temp']}°C"


weather = create_gadget(
    name="weather",  # optional custom name
    description="Get weather for a city",
    schema=CityParams,
    timeout_s=10,
    execute=weather_for,
)


@gadget(timeout_s=10)
async def forecast(city: Annotated[str, Field(description="City name")], days: int = 3) -> str:
    """Get the forecast for a city."""
    data = await fetch_weather(city)
    return f"{city}: {data['temp']}°C for {days} days"


def main() -> None:
    assert test_gadget(Weather, {"city": "Paris"}).result == "Paris: 21.0°C"
    assert test_gadget(weather, {"city": "Oslo"}).result == "Oslo: 21.0°C"
    assert test_gadget(forecast, {"city": "Rome"}).result == "Rome: 21.0°C for 3 days"


if __name__ == "__main__":
    main()
