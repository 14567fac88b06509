// `?` converts into the declared error type, so an error type without a
// conversion is reported at the `?`, naming the declared type.
#[derive(Debug)]
struct AppError;

#[rt::main]
async fn main() -> Result<(), AppError> {
    let _ = "7".parse::<u32>()?;
    Ok(())
}
