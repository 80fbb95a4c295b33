"""How well reverie's secret detector (``reverie.trust.secrets``) separates secrets from ordinary talk.

Two hand-written sets, English and Chinese, expanded from templates with a fixed seed:

* **secrets** -- passwords, passcodes, PINs, door / gate / locker codes stated in a sentence; API
  keys and tokens of the well-known shapes; JWTs, PEM keys, credentials in URLs; random-looking
  tokens; card numbers (Luhn-valid); Chinese resident IDs (with their check character), IBANs,
  SSNs, passport numbers. Recall = share flagged (goal >= 95 %).
* **ordinary** -- messages with numbers that are not secrets: dates, times, prices, room, flight
  and order numbers, versions, measurements, scores, phone-free chit-chat, talk *about* passwords
  without one, file paths, commit hashes, UUIDs; plus notes from ``note_text.py``. False positives
  = share flagged (goal <= 1 %).

    python benchmarks/secret_detector.py [--out docs/benchmarks.md] [--show]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from note_text import note  # noqa: E402
from report import update_section  # noqa: E402

from reverie.trust.secrets import find_secrets  # noqa: E402

SEED = 29

# -- secrets ---------------------------------------------------------------------------------------
CRED_EN = [
    "Remember that the wifi password at the cabin is {w}.", "The wifi password is {w}", "my PIN is {pin}",
    "The door code for the building is {pin}.", "gate code: {pin}#", "Locker code is {pin}, locker 12 at the gym.",
    "The alarm code is {pin} — disarm within 30 seconds.", "password for the NAS = {w}", "Netflix password: {w}",
    "The garage code was changed to {pin}.", "My bank PIN is {pin}, don't share it.", "passcode is {pin}",
    "The safe combination is {combo}.", "Our router password is {w}!", "{pin} is the door code at mom's place",
    "the passphrase is \"{w}\"", "Login for the school portal: user alice, password {w}",
    "pwd: {w}", "The keypad code at the Airbnb is {pin}*", "The new wifi key is {w}.",
    "My phone passcode is now {pin}.", "His voicemail PIN is {pin}.", "The office entry code is {pin} after 7 pm.",
    "Admin password reset to {w} this morning.", "The CVV is {cvv}.", "the bike lock combination is {pin}",
]
CRED_ZH = [
    "门禁密码是 {pin}", "WiFi密码：{w}", "我的银行卡密码是{pin}，别告诉别人", "小区门禁码是{pin}#",
    "健身房储物柜密码是 {pin}", "家里路由器密码为 {w}", "支付密码改成了{pin}", "公司门锁码：{pin}",
    "记住，车库的开门码是{pin}。", "邮箱密码是{w}。", "{pin} 是门禁密码", "民宿的门锁密码是 {pin}，入住时用",
    "保险箱密码设为{combo}", "办公室WiFi密码：{w}，访客用", "我的PIN码是{pin}", "服务器root密码是 {w}",
]
KEYS = [
    "export OPENAI_API_KEY=sk-proj-{r40}", "the key is sk-{r48}", "use token ghp_{r36} for the CI",
    "slack bot token xoxb-{d12}-{d13}-{r24}", "AWS access key AKIA{u16}", "maps key AIza{r35}",
    "Authorization: Bearer {r40}", "jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{r30}.{r43}",
    "-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA{r40}",
    "db url postgres://admin:{w}@db.internal:5432/app", "HF token hf_{r34}", "gitlab glpat-{r20}",
    "stripe key sk_live_{r24}", "API 密钥：sk-ant-{r40}", "令牌 ghp_{r36} 记得轮换", "secret: {r32}",
    "the session cookie was {r44}", "备份的访问令牌是 {r40}",
]
NUMBERS = [
    "card {card}", "My Visa is {card}, exp 09/27.", "信用卡号 {card}", "Pay with {card_sp}.", "银行卡 {card_sp}",
    "身份证号 {cnid}", "我的身份证是{cnid}", "ID {cnid} for the hotel check-in", "IBAN {iban}", "转账到 {iban}",
    "SSN {ssn}", "my social security number is {ssn}", "passport number E{d8}", "护照号码是 G{d8}",
    "passport no. {u2}{d7}",
]

# written as people write them, one each (the last is a known miss: a password glued to a flag)
HARD_SECRETS = [
    "my password is Tr0ub4dor&3", "The PIN for my debit card: 0451", "Grandma's pin is 0451",
    "user: Remember that the wifi password at the cabin is sunflower99.", "gym locker code 3318",
    "the combination to the safe is 12-34-56", "门禁：4471#", "车库密码 8866", "wifi 密码 sunflower99",
    "我的支付宝密码是 135790", "密码：abc12345", "开门密码是520520", "password=hunter2",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "mysql -u root -pS3cretPass!",
]

WORDS = ("sunflower", "tigerlily", "bluefish", "maplesyrup", "oceanview", "redpanda", "cobalt", "kitten", "harbor",
         "zephyr", "lantern", "walnut")


def _rand(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def _luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    for d in string.digits:
        from reverie.trust.secrets import luhn_ok

        if luhn_ok(body + d):
            return body + d
    raise AssertionError


def _cn_id(rng: random.Random) -> str:
    from reverie.trust.secrets import cn_id_ok

    body = (rng.choice(["110101", "310104", "440305", "330106", "510107"])
            + f"{rng.randint(1950, 2005)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(0, 999):03d}")
    for c in "0123456789X":
        if cn_id_ok(body + c):
            return body + c
    raise AssertionError


def _iban(rng: random.Random) -> str:
    bban = "".join(rng.choice(string.digits) for _ in range(18))
    moved = bban + "DE00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    raw = f"DE{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


def fill(t: str, rng: random.Random) -> str:
    card = _luhn_complete(rng.choice(["4", "51", "37", "6011", "62"]), rng.choice([16, 16, 15]), rng)
    vals = {
        "w": rng.choice(WORDS) + rng.choice(["", str(rng.randint(1, 999)), "!" + str(rng.randint(1, 99))]),
        "pin": str(rng.randint(0, 9999)).zfill(4) if rng.random() < 0.7 else str(rng.randint(100000, 999999)),
        "combo": f"{rng.randint(1, 39)}-{rng.randint(1, 39)}-{rng.randint(1, 39)}", "cvv": str(rng.randint(100, 999)),
        "card": card, "card_sp": " ".join(card[i:i + 4] for i in range(0, len(card), 4)), "cnid": _cn_id(rng),
        "iban": _iban(rng), "ssn": f"{rng.randint(100, 665)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}",
        "d7": str(rng.randint(10 ** 6, 10 ** 7 - 1)), "d8": str(rng.randint(10 ** 7, 10 ** 8 - 1)),
        "d12": str(rng.randint(10 ** 11, 10 ** 12 - 1)), "d13": str(rng.randint(10 ** 12, 10 ** 13 - 1)),
        "u2": _rand(rng, 2, string.ascii_uppercase) if False else rng.choice(["AB", "XK", "PA"]),
        "u16": "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16)),
    }
    for n in (20, 24, 30, 32, 34, 35, 36, 40, 43, 44, 48):
        vals[f"r{n}"] = _rand(rng, n)
    return t.format(**vals)


def secrets_set(rng: random.Random, per_template: int = 3) -> list[str]:
    out = []
    for t in CRED_EN + CRED_ZH + KEYS + NUMBERS:
        out += [fill(t, rng) for _ in range(per_template)]
    return out + HARD_SECRETS


# -- ordinary messages -----------------------------------------------------------------------------
ORDINARY_EN = [
    "The meeting moved to {date} at {time} in room {room}.", "Dinner was ${price} for the two of us.",
    "Flight {flight} leaves at {time} from gate {gate}.", "We upgraded to version {ver} last night.",
    "I ran {km} km this morning in {mins} minutes.", "The rent goes up to ${rent} from {date}.",
    "Order #{order} should arrive by {date}.", "Python {ver} broke the build on CI.", "It was {temp}°C in Hangzhou.",
    "My sister turns {age} on {date}.", "The hotel room {room} has a lake view.", "Score was {a}-{b} at half time.",
    "The train G{train} departs {time}.", "Bought {n} kg of apples for ¥{price}.", "Released v{ver} with {n} fixes.",
    "The invoice total is €{price}, due {date}.", "Read chapter {n} on page {page} tonight.",
    "Latency p95 dropped from {ms} ms to {ms2} ms.", "The report has {n} pages and {figs} figures.",
    "Call back after {time}; the clinic is on floor {floor}.", "Bus {n} was late by {mins} minutes again.",
    "The apartment is {area} square meters, on the {floor}th floor.", "Saved ${price} with the coupon.",
    "Pull request #{pr} merged into main.", "Budget for Q{q} is ${rent}k.", "Set the thermostat to {temp} degrees.",
    "Need to reset my password tomorrow, the old one expired.", "The password policy now needs 12 characters.",
    "I forgot my PIN again and had to call the bank.", "The door code changed, ask Bob for the new one.",
    "Remember to rotate the API keys next week.", "The wifi password is on the fridge.",
    "Don't write passwords in notes, use the password manager.", "The PIN pad at the store was broken.",
    "Commit {sha} fixed the flaky test.", "See src/reverie/trust/policy.py line {n}.",
    "Request id {uuid} failed with status {status}.", "The build took {mins}m{secs}s on runner {n}.",
    "Our table is booked for {n} people at {time}.", "Kid's shoe size is {n}.", "Took {n}mg of ibuprofen at {time}.",
    "The package weighs {kg} kg, tracking shows it in Shanghai.", "Loan rate is {rate}% for {n} years.",
    "The combination of rain and traffic made me {mins} minutes late.", "Her secret is practice every day.",
    "Meet at Starbucks on 5th Avenue at {time}.", "Room {room}, building {bld}, see you there.",
    "Version {ver} of the app is slow on my phone.", "The user interface of my app is slow.",
    "Got {a} out of {b} on the quiz.", "The stock closed at {price} on {date}.",
    "We walked {steps} steps today.", "Heart rate was {bpm} bpm after the run.", "Printer code E{n} means paper jam.",
    "The status code was {status}, not 200.", "Error code {status} again from the payment API.",
    "Use port {port} for the dev server.", "The lock screen shows the time {time} wrong.",
    "I passed the exam with {a} points!", "Our anniversary is {date}.", "Pay the electricity bill of ¥{price}.",
]
ORDINARY_ZH = [
    "会议改到{date_zh}{time}，在{room}会议室。", "晚饭两个人花了{price}元。", "航班{flight}在{time}从{gate}登机口起飞。",
    "昨晚升级到了{ver}版本。", "今天早上跑了{km}公里，用时{mins}分钟。", "房租从{date_zh}起涨到{rent}元。",
    "订单{order}预计{date_zh}送达。", "杭州今天{temp}度。", "姐姐{date_zh}过{age}岁生日。", "酒店{room}房间能看到湖景。",
    "高铁G{train}次{time}发车。", "买了{n}斤苹果，花了{price}块。", "发布了{ver}版本，修了{n}个问题。",
    "发票总额{price}元，{date_zh}前付款。", "今晚读到第{n}章第{page}页。", "p95延迟从{ms}毫秒降到{ms2}毫秒。",
    "诊所在{floor}楼，{time}以后再打电话。", "{n}路公交又晚了{mins}分钟。", "房子{area}平米，在{floor}楼。",
    "用优惠券省了{price}元。", "第{q}季度预算{rent}万元。", "空调调到{temp}度。", "明天得重置一下密码，旧的过期了。",
    "密码策略现在要求至少12位。", "又忘了银行卡密码，只好打电话给银行。", "门禁码换了，新的问一下小王。",
    "下周记得轮换API密钥。", "WiFi密码贴在冰箱上。", "别把密码写在笔记里，用密码管理器。", "提交{sha}修好了那个不稳定的测试。",
    "请求{uuid}失败了，状态码{status}。", "构建花了{mins}分{secs}秒。", "订了{n}个人的位子，{time}到。",
    "孩子鞋码{n}号。", "{time}吃了{n}毫克布洛芬。", "包裹重{kg}公斤，物流显示在上海。", "贷款利率{rate}%，{n}年期。",
    "今天走了{steps}步。", "跑完心率{bpm}。", "开发服务器用{port}端口。", "考试考了{a}分！", "纪念日是{date_zh}。",
    "交了{price}元电费。", "验证码一般是6位数字。", "密码是我的生日加名字，我自己记得。", "快递柜在{bld}号楼下面。",
    "房间号是{room}，{bld}栋。", "电话会议的会议号稍后发你。", "我的App界面很慢。", "第{a}名，总共{b}个队。",
]


# close to a secret in words or shape, and not one
TRICKY_ORDINARY = [
    "The code is 200 lines long.", "PIN 2 on the Arduino is ground.", "The secret to good bread is 3 days of proofing.",
    "The combination lock cost $15.", "Password: see 1Password.", "The access code review is at 3 pm.",
    "Token count was 128000 for that prompt.", "The door code is the same as last year.",
    "Our passcode is in the shared vault.", "The gate code changes on 2024-06-01.", "I paid 4111 yuan for the tickets.",
    "Use the wifi in the lobby, the network is GuestNet.", "The API key is stored in .env, never commit it.",
    "Flight MU5138 at 07:40, seat 32A.", "Invoice INV-2024-000123 was paid.", "门牌号是 1203 室。", "验证码发到手机上了。",
    "会议号是 824 5567 9012。", "密码学的课在周三。", "我的工号是 A1023。", "his password hint is the dog's name",
    "She pinned the post at 10:00.", "My passport expires in 2027.", "身份证快过期了，得去派出所换。",
    "the record time was 2:03:45", "version 1.2.3-beta.4+build.567 released",
    "image sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "see https://example.com/a/b/c?id=12345&ref=abcDEF", "the model is gpt-4o-mini-2024-07-18",
    "backup file reverie-backup-2024-05-12T10-30-00Z.tar.gz", "ticket JIRA-12345 and PROJ-678 are blocking",
    "pin 3 of the chip", "The door code 2 floors up is different.", "验证码 6 位", "密码 12位", "the key: 15 minutes",
    "门禁卡丢了，补办花了50元", "The password was rejected again.", "the secret is patience", "the password is wrong",
]


def ordinary_set(rng: random.Random, per_template: int = 4) -> list[str]:
    out = list(TRICKY_ORDINARY)
    for t in ORDINARY_EN + ORDINARY_ZH:
        for _ in range(per_template):
            y, mo, d = rng.randint(2019, 2027), rng.randint(1, 12), rng.randint(1, 28)
            out.append(t.format(
                date=rng.choice([f"{y}-{mo:02d}-{d:02d}", f"{mo}/{d}/{y}", f"March {d}", f"{d}.{mo}.{y}"]),
                date_zh=rng.choice([f"{y}年{mo}月{d}日", f"{mo}月{d}号", f"{y}-{mo:02d}-{d:02d}"]),
                time=rng.choice([f"{rng.randint(0, 23):02d}:{rng.choice(['00', '15', '30', '45'])}",
                                 f"{rng.randint(1, 12)} pm", f"{rng.randint(1, 12)}点半"]),
                room=rng.randint(100, 2999), price=rng.choice([str(rng.randint(5, 5000)), f"{rng.uniform(1, 999):.2f}"]),
                flight=f"{rng.choice(['CA', 'MU', 'LH', 'UA'])}{rng.randint(100, 9999)}", gate=rng.randint(1, 80),
                ver=rng.choice([f"{rng.randint(0, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
                                f"3.{rng.randint(8, 13)}", f"v{rng.randint(1, 5)}.{rng.randint(0, 9)}"]),
                km=rng.randint(2, 42), mins=rng.randint(3, 240), rent=rng.randint(800, 9000),
                order=rng.randint(10 ** 7, 10 ** 12), temp=rng.randint(-10, 38), age=rng.randint(2, 90),
                a=rng.randint(0, 120), b=rng.randint(0, 120), train=rng.randint(1, 9999), n=rng.randint(1, 500),
                page=rng.randint(1, 900), ms=rng.randint(100, 2000), ms2=rng.randint(10, 99), figs=rng.randint(1, 30),
                floor=rng.randint(2, 60), area=rng.randint(30, 300), pr=rng.randint(1, 9000), q=rng.randint(1, 4),
                sha="".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([7, 12, 40]))),
                uuid="-".join("".join(rng.choice("0123456789abcdef") for _ in range(k)) for k in (8, 4, 4, 4, 12)),
                status=rng.choice([400, 401, 403, 404, 500, 502, 503]), secs=rng.randint(0, 59),
                kg=f"{rng.uniform(0.1, 30):.1f}", rate=f"{rng.uniform(2, 6):.2f}", steps=rng.randint(1000, 30000),
                bpm=rng.randint(50, 190), port=rng.randint(1024, 65535), bld=rng.randint(1, 40)))
    return out


def measure(show: bool = False) -> dict:
    rng = random.Random(SEED)
    secrets = secrets_set(rng)
    ordinary = ordinary_set(rng) + [note(i) for i in range(400)]
    t0 = time.perf_counter()
    missed = [s for s in secrets if not find_secrets(s)]
    flagged = [(s, find_secrets(s)) for s in ordinary if find_secrets(s)]
    ms = (time.perf_counter() - t0) * 1000
    if show:
        for s in missed:
            print("MISSED ", s)
        for s, f in flagged:
            print("FLAGGED", s, [s[x.start:x.end] for x in f])
    total_chars = sum(map(len, secrets + ordinary))
    return {"secrets": len(secrets), "found": len(secrets) - len(missed), "recall": 1 - len(missed) / len(secrets),
            "ordinary": len(ordinary), "flagged": len(flagged), "fpRate": len(flagged) / len(ordinary),
            "msPerKChar": ms / (2 * total_chars / 1000)}


def render(r: dict) -> str:
    return (f"`python benchmarks/secret_detector.py --out docs/benchmarks.md`\n\n"
            "| set | messages | flagged | rate | goal |\n|---|---|---|---|---|\n"
            f"| secrets (EN + ZH: stated passwords, PINs, door codes, keys, tokens, cards, IDs) | {r['secrets']} | "
            f"{r['found']} | recall **{r['recall']:.1%}** | ≥ 95 % |\n"
            f"| ordinary messages (EN + ZH, with dates, prices, rooms, versions, hashes, talk about passwords) | "
            f"{r['ordinary']} | {r['flagged']} | false positives **{r['fpRate']:.2%}** | ≤ 1 % |\n\n"
            f"Detection costs about {r['msPerKChar']:.3f} ms per 1,000 characters (both sets scanned once each).")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path)
    ap.add_argument("--show", action="store_true", help="print every miss and false positive")
    args = ap.parse_args()
    r = measure(args.show)
    print(f"secrets: {r['found']}/{r['secrets']} found, recall {r['recall']:.1%}")
    print(f"ordinary: {r['flagged']}/{r['ordinary']} flagged, false positives {r['fpRate']:.2%}")
    if args.out:
        update_section(args.out, "secrets", "Secrets: what the detector flags", render(r))


if __name__ == "__main__":
    main()
