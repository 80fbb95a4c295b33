"""Measure FTS5 keyword-index designs for Chinese/Japanese/Korean + English text.

    python benchmarks/fts_tokenizers.py [--chunks 100000] [--out docs/keyword-index.md]

Candidates (each in its own temporary database made with ``reverie.store.connection.connect``):

  unicode61  FTS5 ``unicode61 remove_diacritics 2``; every query word quoted and AND-ed (the reference's
             default design).
  trigram    FTS5 ``trigram case_sensitive 0``; ``build_query(q, "trigram")``: MATCH for terms of 3+
             characters, ``LIKE '%term%'`` for shorter CJK terms, short Latin words dropped; the relaxed
             (OR) query when the strict one finds nothing.
  pybigram   a Python FTS5 tokenizer registered through apsw that emits CJK bigrams (a lone CJK
             character as itself) and lowercased, diacritic-free Latin/number words; quoted terms AND-ed,
             then OR-ed when that finds nothing.
  cjk        reverie's default: ``segment_for_index`` rewrites CJK runs to bigrams + last character before
             inserting into ``porter unicode61 remove_diacritics 2``; ``build_query(q, "cjk")`` strict,
             then relaxed when strict finds nothing.

Two parts: a correctness matrix on a fixed 20-chunk corpus with required queries, and a speed run on
N seeded synthetic mixed Chinese/English chunks (insert throughput, size, query latency with
``ORDER BY bm25(...) LIMIT 24``). The report (Markdown) is written to ``--out``.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

import apsw  # noqa: E402
import apsw.fts5  # noqa: E402

from reverie.store.connection import connect  # noqa: E402
from reverie.text.cjk import CJK_LETTER_CLASS, has_cjk  # noqa: E402
from reverie.text.fts import TOKENIZERS, build_query, escape_like, query_terms, segment_for_index  # noqa: E402

LIMIT = 24
BATCH = 1000
SEED = 20240611

# --------------------------------------------------------------------------------------------------
# Candidate (c): a Python FTS5 tokenizer, registered with apsw
# --------------------------------------------------------------------------------------------------

_PY_TOKEN_RE = re.compile(f"([{CJK_LETTER_CLASS}]+)|([^\\W_{CJK_LETTER_CLASS}]+)")


def _fold(word: str) -> str:
    word = word.lower()
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _bigram_tokens(text: str, flags: int, locale: str | None) -> list[tuple]:
    """(start, end, token) in character offsets; ``apsw.fts5.StringTokenizer`` maps them to UTF-8 bytes."""
    out: list[tuple] = []
    append = out.append
    for m in _PY_TOKEN_RE.finditer(text):
        start = m.start()
        if m.lastindex == 1:  # a run of CJK letters
            run = m.group(1)
            if len(run) == 1:
                append((start, start + 1, run))
            else:
                for i in range(len(run) - 1):
                    append((start + i, start + i + 2, run[i:i + 2]))
        else:
            word = m.group(2)
            append((start, m.end(), _fold(word)))
    return out


@apsw.fts5.StringTokenizer
def pybigram_tokenizer(con: apsw.Connection, args: list[str]):
    """apsw tokenizer factory: ``tokenize='pybigram'`` once registered on a connection."""
    if args:
        raise ValueError(f"pybigram takes no arguments, got {args}")
    return _bigram_tokens


def register_pybigram(conn: apsw.Connection) -> None:
    conn.register_fts5_tokenizer("pybigram", pybigram_tokenizer)


# --------------------------------------------------------------------------------------------------
# Candidates
# --------------------------------------------------------------------------------------------------


def _rows(conn: apsw.Connection, sql: str, params: tuple) -> list[int]:
    return [r[0] for r in conn.execute(sql, params)]


def _match(conn: apsw.Connection, expr: str, limit: int) -> list[int]:
    return _rows(
        conn,
        "SELECT rowid, bm25(fts) AS r FROM fts WHERE fts MATCH ? ORDER BY r LIMIT ?",
        (expr, limit),
    )


def _quoted_terms(query: str) -> list[str]:
    return ['"' + t.replace('"', "") + '"' for t in query_terms(query)]


def search_unicode61(conn: apsw.Connection, query: str, limit: int = LIMIT) -> list[int]:
    q = build_query(query, "unicode61")  # quoted words, AND-ed
    return _match(conn, q.strict, limit) if q.strict else []


def search_trigram(conn: apsw.Connection, query: str, limit: int = LIMIT) -> list[int]:
    q = build_query(query, "trigram")
    if q.empty:
        return []
    where: list[str] = []
    params: list = []
    if q.strict:
        where.append("fts MATCH ?")
        params.append(q.strict)
    for term in q.like:
        where.append("text LIKE ? ESCAPE '\\'")
        params.append(f"%{escape_like(term)}%")
    order = "ORDER BY r" if q.strict else ""
    score = "bm25(fts)" if q.strict else "0"
    sql = f"SELECT rowid, {score} AS r FROM fts WHERE {' AND '.join(where)} {order} LIMIT ?"
    found = _rows(conn, sql, (*params, limit))
    if not found and q.relaxed:
        found = _match(conn, q.relaxed, limit)
    return found


def search_pybigram(conn: apsw.Connection, query: str, limit: int = LIMIT) -> list[int]:
    terms = _quoted_terms(query)
    if not terms:
        return []
    found = _match(conn, " AND ".join(terms), limit)
    if not found and len(terms) > 1:
        found = _match(conn, " OR ".join(terms), limit)
    return found


def search_cjk(conn: apsw.Connection, query: str, limit: int = LIMIT) -> list[int]:
    q = build_query(query, "cjk")
    if not q.strict:
        return []
    found = _match(conn, q.strict, limit)
    if not found and q.relaxed:
        found = _match(conn, q.relaxed, limit)
    return found


def _identity(text: str) -> str:
    return text


def _cjk_segment(text: str) -> str:
    return segment_for_index(text, "cjk")


@dataclass
class Candidate:
    key: str
    tokenize: str
    query_policy: str
    index_text: Callable[[str], str]
    search: Callable[..., list[int]]  # (conn, query, limit=LIMIT) -> rowids, best first
    setup: Callable[[apsw.Connection], None] | None = None


CANDIDATES = [
    Candidate("unicode61", TOKENIZERS["unicode61"], "quoted words AND-ed (reference default)",
              _identity, search_unicode61),
    Candidate("trigram", TOKENIZERS["trigram"], "build_query(q, 'trigram'): MATCH >=3 chars + LIKE for "
              "shorter CJK; relaxed OR if empty", _identity, search_trigram),
    Candidate("pybigram", "pybigram", "Python apsw tokenizer (CJK bigrams + folded words); "
              "quoted terms AND, then OR if empty", _identity, search_pybigram, register_pybigram),
    Candidate("cjk", TOKENIZERS["cjk"], "segment_for_index + build_query(q, 'cjk'): strict, then relaxed "
              "if empty (reverie default)", _cjk_segment, search_cjk),
]


_ALL_CANDIDATES = list(CANDIDATES)


def open_db(cand: Candidate, path: Path) -> apsw.Connection:
    conn = connect(path)
    if cand.setup:
        cand.setup(conn)
    tok = cand.tokenize.replace("'", "''")
    conn.execute(f"CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='{tok}')")
    return conn


# --------------------------------------------------------------------------------------------------
# Correctness
# --------------------------------------------------------------------------------------------------

FIXED_CHUNKS = [
    "# 杭州出差\n我们在杭州预订了湖景房，酒店离西湖很近，早餐包含在房价里。",  # 1
    "返程车票已经买好了：5月3日下午的高铁，从杭州东站出发。",  # 2
    "这次旅行的预算是八千元，包括住宿、餐饮和交通。",  # 3
    "Trip notes: Hangzhou 酒店 check-in is after 2pm; remember the passport.",  # 4
    "東京のホテルを予約しました。チェックインは午後三時です。",  # 5
    "서울에서 호텔을 예약했다. 체크인은 오후 세 시다.",  # 6
    "We booked a hotel by the station for the conference week.",  # 7
    "会议纪要：项目进度正常，下周一提交设计文档。",  # 8
    "数据库迁移计划：先备份，再升级 SQLite 版本。",  # 9
    "The quarterly budget review moved to Friday afternoon.",  # 10
    "酒精饮料不在报销范围内。",  # 11
    "店铺的营业时间是早上九点到晚上十点。",  # 12
    "预约了牙医，时间是周四上午十点。",  # 13
    "湖边散步的时候看到了很多景色，房子都很漂亮。",  # 14
    "车票价格上涨了，返回的时候要注意。",  # 15
    "Remember to water the plants and feed the cat.",  # 16
    "用户偏好：回答要简洁，代码示例用 Python。",  # 17
    "京都の旅館は高いので、大阪に泊まります。",  # 18
    "오늘은 비가 와서 집에서 책을 읽었다.",  # 19
    "Meeting with Alice about the API redesign; action items in the tracker.",  # 20
]

# (label, query, rowid of the chunk it must find)
REQUIRED_QUERIES = [
    ("zh 2-char word", "酒店", 1),
    ("zh 3-char word", "湖景房", 1),
    ("zh 4-char word", "返程车票", 2),
    ("zh 2-char word", "预算", 3),
    ("mixed en+zh", "Hangzhou 酒店", 4),
    ("ja kanji", "東京", 5),
    ("ja katakana", "ホテル", 5),
    ("ko word in 호텔을", "호텔", 6),
    ("en plural -> singular", "hotels", 7),
    ("en booking -> booked", "booking", 7),
    ("FTS5 syntax chars", '"AND NOT * ( : NEAR hotel', 7),
]


def run_correctness(workdir: Path) -> dict[str, dict[str, str]]:
    """{candidate: {query: 'ok' | 'miss' | 'error: ...'}}."""
    matrix: dict[str, dict[str, str]] = {}
    for cand in CANDIDATES:
        row: dict[str, str] = {}
        matrix[cand.key] = row
        path = workdir / f"fixed-{cand.key}.db"
        try:
            conn = open_db(cand, path)
            with conn:
                conn.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)",
                                 [(i + 1, cand.index_text(t)) for i, t in enumerate(FIXED_CHUNKS)])
        except Exception as exc:  # a candidate that cannot even index fails every query
            for _, q, _ in REQUIRED_QUERIES:
                row[q] = f"error: {type(exc).__name__}: {exc}"
            continue
        for _, q, target in REQUIRED_QUERIES:
            try:
                found = cand.search(conn, q)
                row[q] = "ok" if target in found else "miss"
            except Exception as exc:
                row[q] = f"error: {type(exc).__name__}: {exc}"
        conn.close()
    return matrix


# --------------------------------------------------------------------------------------------------
# Synthetic corpus
# --------------------------------------------------------------------------------------------------

REAL_ZH = (
    "酒店 预算 会议 项目 数据 用户 系统 文档 代码 测试 部署 服务器 客户 需求 设计 计划 时间 问题 方案 团队 产品 市场 "
    "销售 财务 报告 邮件 电话 地址 航班 机票 车票 火车 高铁 地铁 出租车 行李 护照 签证 早餐 午餐 晚餐 咖啡 餐厅 菜单 价格 "
    "发票 报销 合同 付款 账单 银行 信用卡 密码 账号 登录 注册 权限 配置 版本 更新 升级 备份 恢复 日志 错误 异常 性能 内存 "
    "磁盘 网络 接口 模型 向量 索引 搜索 检索 排序 记忆 笔记 日记 周报 月报 总结 复盘 目标 进度 风险 优先级 截止日期 里程碑 "
    "会议室 同事 经理 老板 朋友 家人 孩子 学校 医院 医生 健康 运动 跑步 游泳 天气 下雨 周末 假期 旅行 杭州 上海 北京 深圳 "
    "广州 成都 西湖 景点 门票 拍照 湖景房 返程 出发 到达 预订 取消 改签 退款 确认 提醒 生日 礼物 电影 音乐 阅读 学习 课程 "
    "考试 作业 语言 中文 英文 翻译 偏好 习惯 喜欢 重要 紧急 简单 复杂 原因 结果 建议 决定 讨论 反馈 评审 上线 发布 回滚 "
    "监控 告警 数据库 缓存 队列 容器 集群 节点 前端 后端 移动端 界面 按钮 页面 图表 表格 文件 目录 路径 脚本 命令 终端 "
    "编辑器 插件 依赖 框架 函数 变量 参数 返回值 类型 对象 返程车票 年度预算 技术方案 用户体验 长期记忆 向量检索 关键词 "
    "全文搜索 分词 中文分词 机器学习 自然语言 知识库 工作流 自动化 周会 站会 需求文档 接口文档 代码审查 单元测试 集成测试"
).split()

FUNCTION_ZH = "的 了 在 是 和 与 我们 他们 需要 已经 还有 但是 因为 所以 如果 可以 应该 这个 那个 一下 一些 关于 对于 以及 然后".split()

HANZI_POOL = (
    "一二三四五六七八九十百千万上下左右前后中大小多少高低长短新旧好坏快慢早晚明天今年月日时分秒人口手心头面目耳"
    "山水火木金土石田风雨雪云电光声色花草树林森江河湖海岛城市村路街桥门窗房屋楼层室厅院园场店馆站港厂库车船机"
    "书本纸笔字词句文章诗画图表格线点面体形状颜红黄蓝绿白黑灰紫金银铜铁钢玻璃布衣服帽鞋袜包箱盒瓶杯碗盘锅刀叉"
    "米面饭菜汤茶酒水果肉鱼鸡鸭牛羊猪蛋奶糖盐油醋酱辣甜酸苦咸香味道理法规则制度政策经济社会文化历史科学技术"
    "工程医学教育体育艺术音乐影视游戏网络信息数据软件硬件程序算法模型系统平台服务产品项目管理组织团队公司企业"
    "部门岗位职责任务目标计划方案策略流程环节步骤阶段周期质量效率成本收入利润价值资源能源环境安全健康生活工作"
    "学习研究发展变化增长减少提高降低改进优化调整设置配置安装部署运行测试发布维护监控分析统计计算存储传输处理"
    "开关启停读写查改删加减乘除买卖借还送收发付退换选择判断决定确认取消完成开始结束继续暂停等待通知提醒记录保存"
    "客户用户会员朋友同事老师学生医生司机厨师作者读者观众市民居民家庭父母孩子兄弟姐妹夫妻老人青年儿童男女"
).replace(" ", "")

REAL_EN = (
    "hotel hotels meeting meetings budget project projects deploy deployed deployment server client design plan "
    "schedule report email travel flight ticket tickets train booking booked book review release database index "
    "search memory note notes weekly summary goal risk deadline team manager friend family doctor weather weekend "
    "holiday coffee lunch dinner invoice payment account password login config version update backup restore log "
    "error errors latency throughput cache queue cluster node frontend backend page button table file folder script "
    "command terminal editor plugin library function variable parameter model vector embedding keyword tokenizer "
    "query queries ranking running tested testing fixed fixing merged merge branch commit issue issues bug bugs user "
    "users preference preferences station airport passport visa breakfast checkout lake view room rooms price"
).split()

FUNCTION_EN = "the a an and or of to in on for with at by from is was are will be this that it we they".split()

_ONSETS = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
           "br", "cr", "dr", "st", "tr", "pl", "gr", "sh", "ch", "th"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
_CODAS = ["", "n", "r", "s", "l", "t", "m", "nd", "st", "ck"]


@dataclass
class Vocabulary:
    zh: list[str]
    zh_cum: list[float]
    en: list[str]
    en_cum: list[float]


def _zipf_cum(n: int, s: float = 1.05) -> list[float]:
    total = 0.0
    cum = []
    for r in range(n):
        total += 1.0 / (r + 2.7) ** s
        cum.append(total)
    return cum


def build_vocabulary(rng: random.Random, zh_size: int = 4000, en_size: int = 6000) -> Vocabulary:
    zh = list(dict.fromkeys(REAL_ZH))
    seen = set(zh)
    while len(zh) < zh_size:
        n = rng.choices((2, 3, 4), weights=(60, 25, 15))[0]
        w = "".join(rng.choice(HANZI_POOL) for _ in range(n))
        if w not in seen:
            seen.add(w)
            zh.append(w)
    en = list(dict.fromkeys(REAL_EN))
    seen = set(en)
    while len(en) < en_size:
        w = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS)
                    for _ in range(rng.choice((2, 2, 3))))
        if len(w) >= 3 and w not in seen:
            seen.add(w)
            en.append(w)
    # Zipf ranks: shuffle so that real words and generated ones are spread over the ranks
    rng.shuffle(zh)
    rng.shuffle(en)
    return Vocabulary(zh, _zipf_cum(len(zh)), en, _zipf_cum(len(en)))


def _zh_sentence(rng: random.Random, v: Vocabulary) -> str:
    n = rng.randint(4, 12)
    words = rng.choices(v.zh, cum_weights=v.zh_cum, k=n)
    parts: list[str] = []
    for w in words:
        parts.append(w)
        r = rng.random()
        if r < 0.35:
            parts.append(rng.choice(FUNCTION_ZH))
        elif r < 0.45:
            parts.append("，")
        elif r < 0.53:  # an English term embedded in Chinese, spaced as people type it
            parts.append(" " + rng.choices(v.en, cum_weights=v.en_cum)[0] + " ")
    return "".join(parts).strip() + rng.choice("。。。；！？")


def _en_sentence(rng: random.Random, v: Vocabulary) -> str:
    n = rng.randint(6, 16)
    words = []
    for _ in range(n):
        if rng.random() < 0.35:
            words.append(rng.choice(FUNCTION_EN))
        else:
            words.append(rng.choices(v.en, cum_weights=v.en_cum)[0])
    if rng.random() < 0.15:  # a Chinese word in an English sentence
        words.insert(rng.randrange(len(words)), rng.choices(v.zh, cum_weights=v.zh_cum)[0])
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice("..!?")


def make_chunk(rng: random.Random, v: Vocabulary) -> str:
    target = rng.randint(300, 1500)
    lines: list[str] = []
    if rng.random() < 0.5:
        lines.append("## " + "".join(rng.choices(v.zh, cum_weights=v.zh_cum, k=rng.randint(1, 3))))
    size = sum(len(x) for x in lines)
    while size < target:
        r = rng.random()
        if r < 0.65:
            line = "".join(_zh_sentence(rng, v) for _ in range(rng.randint(1, 4)))
        elif r < 0.85:
            line = " ".join(_en_sentence(rng, v) for _ in range(rng.randint(1, 3)))
        else:
            line = "- " + _zh_sentence(rng, v)
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:target + 200]


def make_corpus(n: int, seed: int = SEED) -> tuple[list[str], Vocabulary]:
    rng = random.Random(seed)
    v = build_vocabulary(rng)
    return [make_chunk(rng, v) for _ in range(n)], v


QUERY_CLASSES = ("zh-2", "zh-3/4", "en", "mixed")


def make_queries(v: Vocabulary, n: int = 200, seed: int = SEED + 1) -> list[tuple[str, str]]:
    """(class, query): a quarter each of 2-char Chinese, 3-4 char Chinese, English, English + Chinese.

    Each word is drawn 40% by corpus frequency (people ask about what they write about), 40% uniformly
    over the vocabulary, and 20% is a word outside the vocabulary (rare or absent in the corpus: a typo,
    a name never written down), which is what makes a substring scan read the whole table."""
    rng = random.Random(seed)
    zh2 = [(w, i) for i, w in enumerate(v.zh) if len(w) == 2]
    zh34 = [(w, i) for i, w in enumerate(v.zh) if len(w) in (3, 4)]
    zh_known = set(v.zh)
    en_known = set(v.en)

    def pick(pool: list[tuple[str, int]]) -> str:
        r = rng.random()
        if r < 0.4:
            ranks = [i for _, i in pool]
            weights = [1.0 / (r + 2.7) ** 1.05 for r in ranks]
            return rng.choices(pool, weights=weights)[0][0]
        if r < 0.8:
            return rng.choice(pool)[0]
        length = len(rng.choice(pool)[0])
        while True:
            w = "".join(rng.choice(HANZI_POOL) for _ in range(length))
            if w not in zh_known:
                return w

    def en() -> str:
        r = rng.random()
        if r < 0.4:
            return rng.choices(v.en, cum_weights=v.en_cum)[0]
        if r < 0.8:
            return rng.choice(v.en)
        while True:
            w = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(2))
            if len(w) >= 3 and w not in en_known:
                return w

    per = max(1, n // 4)
    out: list[tuple[str, str]] = []
    for _ in range(per):
        out.append(("zh-2", pick(zh2)))
    for _ in range(per):
        out.append(("zh-3/4", pick(zh34)))
    for _ in range(per):
        out.append(("en", en()))
    for _ in range(n - 3 * per):
        out.append(("mixed", f"{en()} {pick(zh2 if rng.random() < 0.5 else zh34)}"))
    rng.shuffle(out)
    return out


def ground_truth(corpus: list[str], queries: list[tuple[str, str]]) -> list[set[int]]:
    """Rowids of the chunks that contain every term of each query: CJK terms as substrings, other terms as
    whole words (case-insensitive). Used to measure how many of the returned chunks are real matches."""
    lowered = [t.lower() for t in corpus]
    cache: dict[str, set[int]] = {}

    def ids(term: str) -> set[int]:
        if term not in cache:
            if has_cjk(term):
                cache[term] = {i + 1 for i, t in enumerate(lowered) if term in t}
            else:
                word = re.compile(f"(?<![^\\W_{CJK_LETTER_CLASS}]){re.escape(term)}(?![^\\W_{CJK_LETTER_CLASS}])")
                cache[term] = {i + 1 for i, t in enumerate(lowered) if term in t and word.search(t)}
        return cache[term]

    out = []
    for _, q in queries:
        terms = query_terms(q)
        found = set(ids(terms[0])) if terms else set()
        for term in terms[1:]:
            found &= ids(term)
        out.append(found)
    return out


# --------------------------------------------------------------------------------------------------
# Speed
# --------------------------------------------------------------------------------------------------


@dataclass
class SpeedResult:
    key: str
    chunks: int
    insert_s: float
    db_bytes: int
    index_bytes: int
    content_bytes: int
    latencies_ms: list[float] = field(default_factory=list)
    by_class: dict[str, list[float]] = field(default_factory=dict)
    hits_by_class: dict[str, int] = field(default_factory=dict)
    n_by_class: dict[str, int] = field(default_factory=dict)
    recall_by_class: dict[str, list[float]] = field(default_factory=dict)
    insert_cpu_s: float = float("nan")
    optimize_s: float = float("nan")
    optimized_bytes: int = 0
    optimized_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error: str | None = None

    def recall(self, cls: str | None = None) -> float:
        vals = [x for c, v in self.recall_by_class.items() if cls in (None, c) for x in v]
        return sum(vals) / len(vals) if vals else float("nan")

    @property
    def inserts_per_s(self) -> float:
        return self.chunks / self.insert_s if self.insert_s else 0.0


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))
    return s[k]


def _search_once(cand: Candidate, conn: apsw.Connection, q: str) -> tuple[float, list[int], bool]:
    t = time.perf_counter()
    try:
        found, failed = cand.search(conn, q), False
    except Exception:
        found, failed = [], True
    return (time.perf_counter() - t) * 1000, found, failed


def _build(cand: Candidate, corpus: list[str], workdir: Path, log: Callable[[str], None]
           ) -> tuple[SpeedResult, apsw.Connection | None]:
    path = workdir / f"speed-{cand.key}.db"
    res = SpeedResult(cand.key, len(corpus), 0.0, 0, 0, 0)
    try:
        conn = open_db(cand, path)
        t0 = time.perf_counter()
        c0 = time.process_time()
        conn.execute("BEGIN")
        index_text = cand.index_text
        for start in range(0, len(corpus), BATCH):
            batch = corpus[start:start + BATCH]
            conn.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)",
                             [(start + i + 1, index_text(t)) for i, t in enumerate(batch)])
        conn.execute("COMMIT")
        res.insert_s = time.perf_counter() - t0
        res.insert_cpu_s = time.process_time() - c0
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        res.db_bytes = path.stat().st_size
        for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            if name in ("fts_data", "fts_idx"):
                res.index_bytes += size
            elif name in ("fts_content", "fts_docsize"):
                res.content_bytes += size
        log(f"  {cand.key}: inserted {len(corpus):,} chunks in {res.insert_s:.1f}s "
            f"({res.inserts_per_s:,.0f}/s; CPU {res.insert_cpu_s:.1f}s), {res.db_bytes / 1e6:,.0f} MB; "
            f"load average {_load()}")
        return res, conn
    except Exception as exc:
        res.error = f"{type(exc).__name__}: {exc}"
        log(f"  {cand.key}: error {res.error}")
        return res, None


def _time_interleaved(live: list[tuple[Candidate, apsw.Connection]], queries: list[tuple[str, str]],
                      rounds: int) -> dict[str, list[tuple[float, list[int], bool]]]:
    """Per candidate, per query: (median ms over ``rounds``, results, raised?).

    Candidates take turns (a different order each round), so drift in machine speed over the run
    falls on all of them alike. 10 warm-up queries per candidate first."""
    for cand, conn in live:
        for _, q in queries[:10]:
            _search_once(cand, conn, q)
    times = {c.key: [[] for _ in queries] for c, _ in live}
    found: dict[str, list[list[int]]] = {c.key: [[] for _ in queries] for c, _ in live}
    failed = {c.key: [False] * len(queries) for c, _ in live}
    for r in range(rounds):
        order = live[r % len(live):] + live[:r % len(live)] if live else []
        for cand, conn in order:
            for i, (_, q) in enumerate(queries):
                ms, f, e = _search_once(cand, conn, q)
                times[cand.key][i].append(ms)
                found[cand.key][i] = f
                failed[cand.key][i] = failed[cand.key][i] or e
    return {k: [(statistics.median(t), f, e) for t, f, e in zip(times[k], found[k], failed[k])]
            for k in times}


def run_speed(candidates: list[Candidate], corpus: list[str], queries: list[tuple[str, str]],
              truth: list[set[int]], workdir: Path, log: Callable[[str], None], rounds: int = 3
              ) -> list[SpeedResult]:
    """Build every candidate's database, then time the queries (interleaved), then optimize and again."""
    results: list[SpeedResult] = []
    live: list[tuple[Candidate, apsw.Connection]] = []
    try:
        for cand in candidates:
            res, conn = _build(cand, corpus, workdir, log)
            results.append(res)
            if conn is not None:
                live.append((cand, conn))
        by_key = {r.key: r for r in results}

        timed = _time_interleaved(live, queries, rounds)
        for key, rows in timed.items():
            res = by_key[key]
            for (cls, _), expected, (ms, found, failed) in zip(queries, truth, rows):
                res.errors += int(failed)
                res.latencies_ms.append(ms)
                res.by_class.setdefault(cls, []).append(ms)
                res.n_by_class[cls] = res.n_by_class.get(cls, 0) + 1
                res.hits_by_class[cls] = res.hits_by_class.get(cls, 0) + (1 if found else 0)
            log(f"  {key}: query median {statistics.median(res.latencies_ms):.2f} ms, "
                f"p95 {_pct(res.latencies_ms, 95):.2f} ms")

        # recall: every query once more, untimed and without LIMIT, against the real matches
        for cand, conn in live:
            res = by_key[cand.key]
            for (cls, q), expected in zip(queries, truth):
                if not expected:
                    continue
                try:
                    found_all = set(cand.search(conn, q, -1))
                except Exception:
                    found_all = set()
                res.recall_by_class.setdefault(cls, []).append(len(expected & found_all) / len(expected))
            log(f"  {cand.key}: recall {res.recall():.3f}")

        # the same queries once FTS5 has merged each index's segments into one b-tree
        for cand, conn in live:
            res = by_key[cand.key]
            t = time.perf_counter()
            conn.execute("INSERT INTO fts(fts) VALUES('optimize')")
            res.optimize_s = time.perf_counter() - t
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pages = conn.execute("PRAGMA page_count").fetchall()[0][0]
            free = conn.execute("PRAGMA freelist_count").fetchall()[0][0]
            page_size = conn.execute("PRAGMA page_size").fetchall()[0][0]
            res.optimized_bytes = (pages - free) * page_size
        timed = _time_interleaved(live, queries, rounds)
        for key, rows in timed.items():
            res = by_key[key]
            res.optimized_ms = [ms for ms, _, _ in rows]
            log(f"  {key}: optimize {res.optimize_s:.1f}s, then query median "
                f"{statistics.median(res.optimized_ms):.2f} ms")
    finally:
        for _, conn in live:
            conn.close()
        for p in workdir.glob("speed-*.db*"):
            p.unlink(missing_ok=True)
    return results


# --------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_facts() -> dict[str, str]:
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return {
        "CPU cores": str(os.cpu_count()),
        "CPU": _cpu_model(),
        "RAM": mem,
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "apsw": apsw.apsw_version(),
        "SQLite (from apsw)": apsw.sqlite_lib_version(),
    }


def _table(headers: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def correctness_table(matrix: dict[str, dict[str, str]]) -> str:
    keys = [c.key for c in CANDIDATES]
    rows = []
    for label, q, target in REQUIRED_QUERIES:
        cells = []
        for k in keys:
            v = matrix[k][q]
            cells.append("error" if v.startswith("error") else v)
        shown = q.replace("|", "\\|")
        rows.append([f"`{shown}`", label, f"#{target}"] + cells)
    passed = [f"**{sum(1 for v in matrix[k].values() if v == 'ok')}/{len(REQUIRED_QUERIES)}**" for k in keys]
    rows.append(["**passed**", "", ""] + passed)
    return _table(["query", "what it tests", "target"] + keys, rows)


def _f(x: float, nd: int = 1) -> str:
    return "n/a" if x != x else f"{x:,.{nd}f}"


def speed_table(results: list[SpeedResult]) -> str:
    rows = []
    for r in results:
        if r.error:
            rows.append([r.key, str(r.chunks), "error", "", "", "", "", "", r.error])
            continue
        hits = sum(r.hits_by_class.values())
        total = sum(r.n_by_class.values())
        rows.append([
            r.key, f"{r.chunks:,}", _f(statistics.median(r.latencies_ms), 2), _f(_pct(r.latencies_ms, 95), 2),
            _f(r.inserts_per_s, 0), _f(r.db_bytes / 1e6, 0), _f(r.index_bytes / 1e6, 0), _f(r.recall(), 2),
            f"{hits}/{total}" + (f" ({r.errors} errors)" if r.errors else ""),
        ])
    return _table(["candidate", "chunks", "query median ms", "query p95 ms", "inserts/s", "DB MB",
                   "index MB", "recall", "queries with hits"], rows)


def build_table(results: list[SpeedResult]) -> str:
    rows = []
    for r in results:
        if r.error:
            continue
        rows.append([
            r.key, _f(r.insert_s, 1), _f(r.insert_cpu_s, 1), _f(r.content_bytes / 1e6, 0), _f(r.optimize_s, 1),
            _f(r.optimized_bytes / 1e6, 0), _f(statistics.median(r.optimized_ms), 2) if r.optimized_ms else "n/a",
            _f(_pct(r.optimized_ms, 95), 2),
        ])
    return _table(["candidate", "insert s (wall)", "insert s (CPU)", "content MB", "optimize s",
                   "DB MB in use after optimize", "query median ms after", "query p95 ms after"], rows)


def class_table(results: list[SpeedResult]) -> str:
    rows = []
    for r in results:
        if r.error:
            continue
        cells = [r.key]
        for cls in QUERY_CLASSES:
            lat = r.by_class.get(cls, [])
            cells.append(f"{_f(statistics.median(lat), 2) if lat else 'n/a'} / {_f(_pct(lat, 95), 2)}"
                         f" / {_f(r.recall(cls), 2)}")
        rows.append(cells)
    return _table(["candidate"] + [f"{c}: median / p95 ms / recall" for c in QUERY_CLASSES], rows)


def _med(r: SpeedResult | None, cls: str | None = None) -> float:
    if r is None or r.error:
        return float("nan")
    lat = r.latencies_ms if cls is None else r.by_class.get(cls, [])
    return statistics.median(lat) if lat else float("nan")


def all_candidates_for_report() -> list[Candidate]:
    return _ALL_CANDIDATES


def discussion(matrix: dict[str, dict[str, str]], results: list[SpeedResult], n: int) -> str:
    by = {r.key: r for r in results}
    cjk, tri, py, uni = by.get("cjk"), by.get("trigram"), by.get("pybigram"), by.get("unicode61")
    ok = {c.key: "n/a" for c in all_candidates_for_report()}
    ok.update({k: sum(1 for v in row.values() if v == "ok") for k, row in matrix.items()})
    total = len(REQUIRED_QUERIES)

    def live(r: SpeedResult | None) -> bool:
        return r is not None and not r.error

    def mb(r: SpeedResult | None, what: str) -> str:
        return f"{getattr(r, what) / 1e6:,.0f} MB" if live(r) else "n/a"

    def ips(r: SpeedResult | None) -> str:
        return f"{r.inserts_per_s:,.0f}" if live(r) else "n/a"

    def cpu(r: SpeedResult | None) -> str:
        return f"{r.insert_cpu_s:,.1f} s" if live(r) else "n/a"

    def rec(r: SpeedResult | None, cls: str | None = None) -> str:
        return _f(r.recall(cls), 2) if live(r) else "n/a"

    def ms(r: SpeedResult | None, cls: str | None = None, p: float | None = None) -> str:
        if not live(r):
            return "n/a"
        lat = r.latencies_ms if cls is None else r.by_class.get(cls, [])
        return _f(_pct(lat, p) if p else (statistics.median(lat) if lat else float("nan")), 2)

    def ratio(a: SpeedResult | None, b: SpeedResult | None, what: str) -> str:
        if not (live(a) and live(b)) or not getattr(b, what):
            return "n/a"
        return f"{getattr(a, what) / getattr(b, what):.1f}x"

    def opt(r: SpeedResult | None) -> float:
        return statistics.median(r.optimized_ms) if live(r) and r.optimized_ms else float("nan")

    if live(cjk) and live(py):
        before = statistics.median(cjk.latencies_ms) / statistics.median(py.latencies_ms)
        after = opt(cjk) / opt(py)
        versus_pybigram = (
            f"Against pybigram, the other bigram design, its median query latency was {before:.2f}x as "
            f"inserted and {after:.2f}x after `optimize` ({ms(cjk)} vs {ms(py)} ms, then {_f(opt(cjk), 2)} "
            f"vs {_f(opt(py), 2)} ms). Both search the same bigram postings with the same FTS5 code (cjk's "
            f"extra last-letter tokens are separate posting lists that a bigram query never reads), so a "
            f"gap of this size between them is more likely timing noise on a shared machine than a "
            f"property of either design; one run does not settle it.")
    else:
        versus_pybigram = ""

    lines = [
        f"- **unicode61** passed {ok['unicode61']}/{total}. It keeps a whole run of CJK letters as one "
        f"token, so a Chinese, Japanese or Korean word is found only where it stands alone between spaces or "
        f"punctuation. In the speed run its recall was {rec(uni, 'zh-2')} for 2-character Chinese words, "
        f"{rec(uni, 'zh-3/4')} for 3-4 character ones and {rec(uni, 'mixed')} for mixed queries (cjk: "
        f"{rec(cjk, 'zh-2')}, {rec(cjk, 'zh-3/4')}, {rec(cjk, 'mixed')}); what it does find are the "
        f"occurrences the generator happened to leave alone between punctuation, spaces or an embedded "
        f"English word. Its top {LIMIT} can still look full for a common word, which hides the loss. It is the "
        f"smallest and cheapest index ({ms(uni)} ms median, {ips(uni)} inserts/s) because it indexes least. No stemming (`hotels` "
        f"misses `hotel`), and plain AND returns nothing when one query word is absent (the FTS5-syntax "
        f"query: no error, but no result either).",
        f"- **trigram** passed {ok['trigram']}/{total}: every CJK substring is found, but there is no "
        f"stemming. Terms shorter than 3 characters cannot use the trigram index, so a 2-character Chinese "
        f"word becomes `LIKE '%..%'`, a scan of the rows' text. With no MATCH there is no bm25, so the "
        f"results come unranked, and the scan stops at the {LIMIT}th hit: a common word is answered "
        f"quickly, a rare or absent one reads the whole table. At {n:,} chunks the 2-character Chinese "
        f"queries took {ms(tri, 'zh-2')} ms median but {ms(tri, 'zh-2', 95)} ms p95 (cjk: "
        f"{ms(cjk, 'zh-2')} / {ms(cjk, 'zh-2', 95)} ms), and the scan grows linearly with the corpus. "
        f"A mixed query whose Chinese word is short must test LIKE on every row its English word "
        f"matches before ranking ({ms(tri, 'mixed')} / {ms(tri, 'mixed', 95)} ms median / p95). English words "
        f"are slower too ({ms(tri, 'en')} ms median against {ms(cjk, 'en')} ms), since each is a phrase of "
        f"trigrams. The index is the largest ({mb(tri, 'index_bytes')}, {ratio(tri, cjk, 'index_bytes')} "
        f"cjk's), because every 3-character window of every text, Latin included, is a token.",
        f"- **pybigram** passed {ok['pybigram']}/{total}: the same CJK recall as cjk, no stemming (FTS5's "
        f"porter can wrap it, `tokenize='porter pybigram'`, at more cost per token). Every "
        f"document and every query string goes through a Python callback that yields each token: "
        f"{ips(py)} inserts/s against {ips(cjk)} for cjk ({cpu(py)} against {cpu(cjk)} of CPU time for "
        f"the whole insert), whose Python work is one regex substitution per "
        f"chunk before the insert. Its index is the most compact of the bigram designs "
        f"({mb(py, 'index_bytes')} index, {mb(py, 'db_bytes')} file). Its decisive cost is elsewhere: a "
        f"database holding such a table cannot be searched or written by any SQLite that has not "
        f"registered the tokenizer (the sqlite3 shell, a backup tool, another program or language) - "
        f"`MATCH` and `INSERT` fail with \"error in tokenizer constructor\".",
        f"- **cjk** passed {ok['cjk']}/{total}: CJK words of any length, porter stemming for English, and "
        f"quoted terms with a relaxed fallback, so FTS5 syntax in user text is harmless. Queries are "
        f"ordinary phrase/AND/OR MATCH expressions ranked by bm25 ({ms(cjk)} ms median, {ms(cjk, None, 95)} "
        f"ms p95 at {n:,} chunks); the index is built-in FTS5 that any SQLite reads. The price is size. "
        f"A CJK run of n letters becomes n tokens (n-1 bigrams and the last letter, which lets a "
        f"one-character prefix query reach it), so the index is about pybigram's "
        f"({mb(cjk, 'index_bytes')} vs {mb(py, 'index_bytes')}) and {ratio(cjk, uni, 'index_bytes')} "
        f"unicode61's. The bigger cost is that the FTS table stores the segmented text as its content "
        f"(each CJK letter written about twice, plus spaces): {mb(cjk, 'content_bytes')} of content against "
        f"{mb(uni, 'content_bytes')}, {mb(cjk, 'db_bytes')} in all against {mb(uni, 'db_bytes')}. A "
        f"contentless FTS table (`content=''`) would remove most of that, since chunk text is kept in its "
        f"own table anyway. {versus_pybigram} "
        f"Bigram phrase matching is substring matching: `湖景房` also matches inside `湖景房间`, which is the "
        f"recall memory search wants.",
    ]
    return "\n".join(lines)


def render_report(command: str, matrix: dict[str, dict[str, str]], results: list[SpeedResult],
                  n: int, n_queries: int, gen_s: float, avg_chars: float, cjk_share: float,
                  wall_s: float, rounds: int, loads: dict[str, str]) -> str:
    facts = machine_facts()
    for when, load in loads.items():
        facts[f"load average 1/5/15 min, {when}"] = load
    cand_rows = [[c.key, f"`{c.tokenize}`", c.query_policy] for c in CANDIDATES]
    return f"""# Keyword index for Chinese, Japanese, Korean and English

## Decision

reverie's keyword index uses the **`cjk`** design by default: before a chunk is written to the FTS5
table, `reverie.text.fts.segment_for_index` rewrites every run of CJK letters (Han, Kana, Hangul) to
its overlapping bigrams plus its last character (`酒店预算` -> `酒店 店预 预算 算`), and the table uses
FTS5's built-in `porter unicode61 remove_diacritics 2` tokenizer. Queries are built by
`build_query(q, "cjk")`: each CJK term becomes the phrase of its bigrams, every term is quoted (user text
can never be FTS5 syntax), the strict (AND) query runs first and the relaxed (OR) one when strict finds
nothing. No Python runs inside SQLite and any SQLite can read the index.

`unicode61` and `trigram` remain selectable with `memory.search.store.fts.tokenizer`
(env `REVERIE_FTS_TOKENIZER`). The tokenizer is part of the index identity: an index keeps the tokenizer
it was built with until it is rebuilt (`reverie index --force`).

The figures below come from one run of `benchmarks/fts_tokenizers.py`:

```
{command}
```

## Candidates

{_table(["candidate", "FTS5 tokenize=", "indexing / query"], cand_rows)}

## Correctness

A fixed corpus of {len(FIXED_CHUNKS)} chunks (Chinese, Japanese, Korean, English; see `FIXED_CHUNKS` in
the benchmark, with distractors such as `酒精`, `店铺`, `湖边…景色…房子`, `车票…返回`). A cell is `ok`
when the query's result list (top {LIMIT}) contains the target chunk, `miss` when it does not, `error`
when the query raised.

{correctness_table(matrix)}

## Speed

{n:,} seeded synthetic Markdown chunks (average {avg_chars:,.0f} characters, {cjk_share:.0%} of them CJK;
4,000 Chinese words and phrases and 6,000 English words, Zipf-distributed; generated in {gen_s:.1f} s),
inserted in one transaction in batches of {BATCH:,} into a fresh WAL database per candidate (for `cjk`
the time includes `segment_for_index`). All databases are built first, then the candidates take turns
running the query list, so a drift in machine speed does not favour one of them. Size is the database
file after a WAL checkpoint; "index" is FTS5's `_data` + `_idx` b-trees, "content" its `_content` +
`_docsize` tables (from `dbstat`).
{n_queries} queries, a quarter each of 2-character Chinese words, 3-4 character Chinese words, English
words, and English + Chinese pairs (each word drawn 40% by corpus frequency, 40% uniformly over the
vocabulary, 20% a made-up word that is rare or absent in the corpus), each timed end to end
(query building, strict then relaxed fallback where the candidate has one, `ORDER BY bm25(fts) LIMIT
{LIMIT}`, fetching the rowids), after 10 warm-up queries; the query list is run {rounds} times and each
query's latency is the median of its runs. **recall** is the share of the real matches a
candidate finds, averaged over the queries that have any: a real match is a chunk containing every
query term (CJK terms as substrings, other terms as whole words, case-insensitive), and recall is measured
by running each query once more, untimed, without the LIMIT. Stemmed matches (`booked` for `booking`)
are extra, not counted; a relaxed (OR) fallback only runs when nothing matches all terms, so it does not
change recall.
"queries with hits" counts queries that returned anything at all.

{speed_table(results)}

Insert time, stored content, and the same queries after `INSERT INTO fts(fts) VALUES('optimize')`
(which merges FTS5's segments into one b-tree; reverie does not run it, so the first table is the
relevant one):

{build_table(results)}

By query class (median ms / p95 ms / recall, before optimize):

{class_table(results)}

Whole run (corpus generation, all candidates, both parts): {wall_s:.0f} s.

## Machine

{_table(["", ""], [[k, v] for k, v in facts.items()])}

The machine may be shared with other work, hence the load averages: wall-clock figures include any
competition for its {facts['CPU cores']} cores, the insert CPU-time column does not.

## Discussion

{discussion(matrix, results, n)}
"""


# --------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=100_000, help="chunks in the speed corpus (default 100000)")
    ap.add_argument("--queries", type=int, default=200, help="timed queries per candidate (default 200)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="times each query list is run; a query's latency is its median (default 3)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "keyword-index.md"), help="report path")
    ap.add_argument("--only", default=None, help="comma-separated candidate keys (default: all)")
    args = ap.parse_args(argv)
    given = list(sys.argv[1:]) if argv is None else list(argv)
    command = "python benchmarks/fts_tokenizers.py" + ("" if not given else " " + " ".join(given))

    wall0 = time.perf_counter()

    def log(msg: str) -> None:
        print(msg, flush=True)

    global CANDIDATES
    all_candidates = CANDIDATES
    if args.only:
        wanted = set(args.only.split(","))
        CANDIDATES = [c for c in CANDIDATES if c.key in wanted]
    try:
        workdir = Path(tempfile.mkdtemp(prefix="reverie-fts-bench-"))
        try:
            matrix = run_correctness(workdir)
            log("Correctness (target chunk found in the top results):")
            log(correctness_table(matrix))
            log("")

            t = time.perf_counter()
            corpus, vocab = make_corpus(args.chunks)
            gen_s = time.perf_counter() - t
            queries = make_queries(vocab, args.queries)
            total_chars = sum(len(c) for c in corpus)
            cjk_chars = sum(len(r) for c in corpus for r in re.findall(f"[{CJK_LETTER_CLASS}]+", c))
            avg_chars = total_chars / max(1, len(corpus))
            cjk_share = cjk_chars / max(1, total_chars)
            log(f"Speed corpus: {len(corpus):,} chunks, avg {avg_chars:,.0f} chars, {cjk_share:.0%} CJK, "
                f"generated in {gen_s:.1f}s; {len(queries)} queries")
            t = time.perf_counter()
            truth = ground_truth(corpus, queries)
            log(f"Ground truth for {len(queries)} queries in {time.perf_counter() - t:.1f}s "
                f"({sum(1 for x in truth if x)} have at least one matching chunk)")
            loads = {"start of the speed part": _load()}

            def progress(msg: str) -> None:
                log(f"[{time.perf_counter() - wall0:4.0f}s]{msg}")

            results = run_speed(CANDIDATES, corpus, queries, truth, workdir, progress, args.rounds)
            loads["end of the speed part"] = _load()
            del corpus
            log("")
            log(speed_table(results))
            log("")
            log(build_table(results))
            log("")
            log(class_table(results))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

        wall_s = time.perf_counter() - wall0
        report = render_report(command, matrix, results, args.chunks, len(queries), gen_s, avg_chars,
                               cjk_share, wall_s, args.rounds, loads)
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(report, encoding="utf-8")
        log(f"\nWrote {out} ({wall_s:.0f} s)")
        return {"correctness": matrix, "speed": results, "report": report, "out": str(out)}
    finally:
        CANDIDATES = all_candidates


if __name__ == "__main__":
    main()
