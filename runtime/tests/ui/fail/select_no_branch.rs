#[rt::main]
async fn main() {
    let _: u32 = rt::select! {
        else => 0,
    };
}
